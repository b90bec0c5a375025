import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { publicJwkOf, type PublicJwk } from '../jose/jwk.js';
import { parseCertificate, type Certificate } from '../x509/chain.js';
import { makeCertificate, type TestCertificate } from '../../test/support/x509-test-pki.js';
import {
  KeyAttestationsService,
  type KeyAttestationsRequired,
} from './key-attestations.service.js';
import { type WalletProviderCertificates } from './wallet-provider-certificates.js';

const now = Date.now();
const seconds = Math.floor(now / 1000);

describe(KeyAttestationsService.name, () => {
  let root: TestCertificate;
  let attester: TestCertificate;
  let stranger: TestCertificate;
  let proved: PublicJwk;
  let other: PublicJwk;
  let service: KeyAttestationsService;

  beforeAll(async () => {
    root = await makeCertificate('Wallet provider', { ca: true });
    attester = await makeCertificate('Key attester', { issuer: root });
    stranger = await makeCertificate('Stranger');
    proved = publicJwkOf(await exportJWK((await generateKeyPair('ES256')).publicKey)) as PublicJwk;
    other = publicJwkOf(await exportJWK((await generateKeyPair('ES256')).publicKey)) as PublicJwk;
    const providers = [parseCertificate(root.pem) as Certificate];
    service = new KeyAttestationsService({
      of: () => Promise.resolve(providers),
    } as unknown as WalletProviderCertificates);
  });

  const attestation = (
    claims: Record<string, unknown> = {},
    signer = attester,
    typ = 'key-attestation+jwt',
  ) =>
    new SignJWT({
      iat: seconds,
      attested_keys: [proved],
      key_storage: ['iso_18045_high'],
      ...claims,
    })
      .setProtectedHeader({ alg: 'ES256', typ, x5c: [signer.base64] })
      .sign(signer.keys.privateKey);

  const problem = async (
    jwt: unknown,
    required: KeyAttestationsRequired = { key_storage: ['iso_18045_high'] },
  ) => service.problem('acme', jwt, { provedKey: proved, cNonce: 'c-1', required, now });

  it('accepts an attestation of the proof’s key by a provider, with the level asked', async () => {
    expect(await problem(await attestation())).toBeUndefined();
    expect(await problem(await attestation({ nonce: 'c-1' }), {})).toBeUndefined();
  });

  it.each<[string, () => Promise<unknown>, RegExp]>([
    ['none', () => Promise.resolve(undefined), /missing/],
    ['another typ', () => attestation({}, attester, 'jwt'), /typ/],
    ['another key', () => attestation({ attested_keys: [other] }), /does not attest/],
    ['no attested_keys', () => attestation({ attested_keys: [] }), /attested_keys/],
    ['a chain to no provider', () => attestation({}, stranger), /x5c chain refused/],
    ['another nonce', () => attestation({ nonce: 'c-2' }), /nonce/],
    ['a lower level', () => attestation({ key_storage: ['iso_18045_basic'] }), /key_storage/],
    ['an expired one', () => attestation({ exp: seconds - 600 }), /expired/],
  ])('refuses %s', async (_, make, reason) => {
    expect(await problem(await make())).toMatch(reason);
  });
});
