import { generateKeyPairSync, sign } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { OAuthError } from '../../common/oauth-error.js';
import { type Settings } from '../../config/settings.js';
import { type DidService, type TenantSigner } from '../../did/did.service.js';
import { testClock } from '../../../test/support/service-fakes.js';
import {
  type PresentationRequestEntity,
  type WalletRequests,
} from '../requests/wallet-requests.js';
import { type VerifierIdentity } from '../verifier-identity.service.js';
import { RequestObjectService } from './request-object.service.js';

const start = Date.UTC(2026, 0, 1);
const request = {
  id: 'request-1',
  tenantId: 'acme',
  status: 'pending',
  responseMode: 'direct_post',
  dcqlQuery: { credentials: [{ id: 'badge', format: 'dc+sd-jwt' }] },
  nonce: 'request-nonce',
  clientId: 'decentralized_identifier:did:key:z6MkExample',
  state: 'request-state',
  expiresAt: new Date(start + 600_000),
} as unknown as PresentationRequestEntity;

/**
 * The request-object endpoint with every dependency faked: the requests folder's service over one
 * open request, the tenant's DID signer (a real Ed25519 key, so the answer verifies), the clock.
 */
function newTestService() {
  const time = testClock(start);
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const fakes = { lookups: [] as string[], signers: [] as string[], publicKey };
  const requests = {
    findOpen: (tenantId: string, reference: string) => {
      fakes.lookups.push(reference);
      return Promise.resolve(
        tenantId === 'acme' && reference === 'ref-1'
          ? { request, secrets: { reference: 'ref-1' } }
          : undefined,
      );
    },
    now: () => new Date(time.clock()),
  } as unknown as WalletRequests;
  const dids = {
    signerFor: (tenantId: string) => {
      fakes.signers.push(tenantId);
      return Promise.resolve({
        did: 'did:key:z6MkExample',
        verificationMethod: 'did:key:z6MkExample#z6MkExample',
        signer: {
          algorithm: 'Ed25519',
          sign: ({ data }: { data: Uint8Array }) =>
            Promise.resolve(new Uint8Array(sign(null, data, privateKey))),
        },
      } as unknown as TenantSigner);
    },
  } as unknown as DidService;
  const settings = { PUBLIC_BASE_URL: 'https://agent.example' } as Settings;
  const identity = {
    x509SigningFor: () => Promise.reject(new Error('a DID client id signs with the DID key')),
  } as unknown as VerifierIdentity;
  const service = new RequestObjectService(settings, requests, dids, identity);
  return { service, time, fakes };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'answered',
    (error: unknown) =>
      error instanceof OAuthError ? `${error.status} ${error.error}` : String(error),
  );

describe(RequestObjectService.name, () => {
  it('signs the open request’s object with the tenant’s DID key, echoing the wallet’s nonce', async () => {
    const { service, time, fakes } = newTestService();
    time.advance(60_000);
    const jwt = await service.requestObject('acme', 'ref-1', { wallet_nonce: 'wn-1' });
    expect(decodeProtectedHeader(jwt)).toMatchObject({
      alg: 'EdDSA',
      kid: 'did:key:z6MkExample#z6MkExample',
    });
    const x = fakes.publicKey.export({ format: 'jwk' }).x!;
    const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x }, 'EdDSA');
    const { payload } = await compactVerify(jwt, key);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      client_id: request.clientId,
      nonce: 'request-nonce',
      state: 'request-state',
      response_uri: 'https://agent.example/ctrl/oid4vp/acme/requests/ref-1/response',
      wallet_nonce: 'wn-1',
      iat: (start + 60_000) / 1000,
      exp: (start + 600_000) / 1000,
    });
    expect(fakes.signers).toEqual(['acme']);
  });

  it('answers 404 for no open request, and signs nothing', async () => {
    const { service, fakes } = newTestService();
    expect(await refusal(service.requestObject('acme', 'ref-2'))).toBe('404 invalid_request_uri');
    expect(await refusal(service.requestObject('other', 'ref-1'))).toBe('404 invalid_request_uri');
    expect(fakes.signers).toEqual([]);
  });

  it.each([
    ['a wallet_nonce with a space', { wallet_nonce: 'a b' }],
    ['an overlong wallet_nonce', { wallet_nonce: 'n'.repeat(257) }],
    ['wallet_metadata that is not a JSON object', { wallet_metadata: '[1]' }],
    ['wallet_metadata that is not JSON', { wallet_metadata: '{' }],
  ])('refuses %s before looking the request up', async (_, form) => {
    const { service, fakes } = newTestService();
    expect(await refusal(service.requestObject('acme', 'ref-1', form))).toBe('400 invalid_request');
    expect(fakes.lookups).toEqual([]);
    expect(fakes.signers).toEqual([]);
  });
});
