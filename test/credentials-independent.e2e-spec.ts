import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import * as vc from '@digitalbazaar/vc';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context';
import { contexts as statusListContexts } from '@digitalbazaar/vc-bitstring-status-list-context';
import { contexts as didContexts } from 'did-context';
import { contexts as ed25519Contexts } from 'ed25519-signature-2020-context';
import { independentResolver, type DidKeyDriver } from './support/independent-did-resolver.js';
import { startTestService, type TestService } from './support/test-service.js';
import { alumniCredential, examplesV2, issue, type Json } from './support/credentials-harness.js';

/**
 * A verifier elsewhere, written by others: Digital Bazaar's vc library and its Bitstring Status List
 * checker, its own did:key resolver, and nothing but the public status list URL fetched over HTTP
 * without a token. None of the service's code is on this path.
 */
describe('Credentials checked by an independent verifier', () => {
  let service: TestService;
  let resolver: DidKeyDriver;
  const contexts = new Map<string, unknown>([
    ...credentialsContexts,
    ...dataIntegrityContexts,
    ...statusListContexts,
    ...didContexts,
    ...ed25519Contexts,
    [examplesV2, { '@context': { '@vocab': 'https://www.w3.org/ns/credentials/examples#' } }],
  ]);

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    resolver = await independentResolver();
  });
  afterAll(() => service.close());

  const documentLoader = async (url: string) => {
    const context = contexts.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: context };
    if (url.startsWith('did:key:')) {
      return { contextUrl: null, documentUrl: url, document: await resolver.get({ did: url }) };
    }
    if (url.startsWith(`${service.publicBaseUrl}/ctrl/status-lists/`)) {
      const answer = await fetch(url.replace(service.publicBaseUrl, service.url));
      return { contextUrl: null, documentUrl: url, document: await answer.json() };
    }
    throw new Error(`not loaded: ${url}`);
  };

  const verify = (credential: Json) =>
    vc.verifyCredential({
      credential,
      suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
      documentLoader,
      checkStatus: (options: { credential: Json }) =>
        checkStatus({
          ...options,
          documentLoader,
          suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
          verifyBitstringStatusListCredential: true,
          verifyMatchingIssuers: true,
        }),
    });

  it('verifies an issued credential and its status, then sees it revoked', async () => {
    const credential = (await issue(service, 'demo', alumniCredential())).body.verifiableCredential;

    const before = await verify(credential);
    expect({ verified: before.verified, error: before.error?.message }).toEqual({
      verified: true,
      error: undefined,
    });
    expect(before.statusResult).toMatchObject({ verified: true, results: [{ status: false }] });

    const revoked = await service.request(`/ctrl/api/v1.0/credentials/status`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: {
        credentialId: credential.id,
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      },
    });
    expect(revoked.status).toBe(204);

    // The library reports a set bit as the status result (status: true), leaving the caller to act on it.
    const after = await verify(credential);
    expect(after.statusResult).toMatchObject({ verified: true, results: [{ status: true }] });
  });
});
