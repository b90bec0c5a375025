import { p384 } from '@noble/curves/nist.js';
import { base58 } from '@scure/base';
import {
  alumniCredential,
  credentialOutcome,
  presentationOutcome,
  verifyCredential,
  type Json,
} from './support/credentials-harness.js';
import { didJwkOf, foreignKey, type ForeignKey } from './support/foreign-keys.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * did:jwk and P-256 did:key issuers and holders, resolved from the DID alone: credentials and
 * presentations signed by Digital Bazaar's libraries (eddsa and ecdsa cryptosuites), verified here.
 */
describe('did:jwk and P-256 did:key issuers and holders', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
  });
  afterAll(() => service.close());

  const outcome = (credential: Json) => credentialOutcome(service, 'demo', credential);
  const presentationOutcomeOf = (presentation: Json, challenge: string) =>
    presentationOutcome(service, 'demo', presentation, challenge);

  const didKeyOf = (key: ForeignKey) => `did:key:${key.publicKeyMultibase}`;

  it.each<['Ed25519' | 'P-256', 'rdfc' | 'jcs']>([
    ['Ed25519', 'jcs'],
    ['P-256', 'rdfc'],
    ['P-256', 'jcs'],
  ])('verifies a credential of a %s did:jwk issuer (%s)', async (kind, how) => {
    const key = await foreignKey(kind);
    const did = didJwkOf(key);
    const credential = await key.issue(alumniCredential(), did, `${did}#0`, how);
    expect(await outcome(credential)).toEqual({ status: 200, details: [] });
  });

  it.each<'rdfc' | 'jcs'>(['rdfc', 'jcs'])(
    'verifies a credential of a P-256 did:key issuer (ecdsa-%s-2019)',
    async (how) => {
      const key = await foreignKey('P-256');
      const did = didKeyOf(key);
      expect(did).toMatch(/^did:key:zDn/);
      const credential = await key.issue(
        alumniCredential(),
        did,
        `${did}#${key.publicKeyMultibase}`,
        how,
      );
      expect((credential.proof as Json).cryptosuite).toBe(`ecdsa-${how}-2019`);
      expect(await outcome(credential)).toEqual({ status: 200, details: [] });

      (credential.credentialSubject as Json).alumniOf = 'Elsewhere';
      const changed = await outcome(credential);
      expect(changed.status).toBe(422);
      expect(changed.details).toEqual([expect.stringMatching(/^proof: proof \(ecdsa-/)]);
    },
  );

  it('refuses an ecdsa proofValue beyond the limit before any library reads it', async () => {
    const key = await foreignKey('P-256');
    const did = didJwkOf(key);
    const credential = await key.issue(alumniCredential(), did, `${did}#0`);
    (credential.proof as Json).proofValue = `z${'2'.repeat(5_000)}`;
    const answer = await verifyCredential(service, 'demo', credential);
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      {
        field: 'verifiableCredential.proof.proofValue',
        message: 'is longer than 100 characters: an Ed25519 or P-256 signature has 86-88',
      },
    ]);
  });

  it('verifies a presentation of a did:jwk holder carrying a P-256 did:key credential', async () => {
    const issuerKey = await foreignKey('P-256');
    const issuer = didKeyOf(issuerKey);
    const credential = await issuerKey.issue(
      alumniCredential(),
      issuer,
      `${issuer}#${issuerKey.publicKeyMultibase}`,
    );
    for (const kind of ['Ed25519', 'P-256'] as const) {
      const holderKey = await foreignKey(kind);
      const holder = didJwkOf(holderKey);
      const presentation = await holderKey.present([credential], holder, `${holder}#0`, 'c-1');
      expect(await presentationOutcomeOf(presentation, 'c-1')).toEqual({
        status: 200,
        details: [],
      });
    }
  });

  it('refuses a holder whose did:jwk key is for encryption only', async () => {
    const holderKey = await foreignKey('P-256');
    const { kty, crv, x, y } = holderKey.publicKeyJwk;
    const holder = `did:jwk:${Buffer.from(JSON.stringify({ kty, crv, x, y, use: 'enc' })).toString('base64url')}`;
    const presentation = await holderKey.present([], holder, `${holder}#0`, 'c-2');
    const { status, details } = await presentationOutcomeOf(presentation, 'c-2');
    expect(status).toBe(422);
    expect(details).toEqual([
      `holder: proof (ecdsa-rdfc-2019): the key '${holder}#0' is not an authentication key of ${holder}`,
    ]);
  });

  it('refuses a did:jwk that carries a private key', async () => {
    const key = await foreignKey('P-256');
    const did = `did:jwk:${Buffer.from(JSON.stringify({ ...key.publicKeyJwk, d: 'AAAA' })).toString('base64url')}`;
    const credential = await key.issue(alumniCredential(), did, `${did}#0`);
    const { status, details } = await outcome(credential);
    expect(status).toBe(422);
    expect(details).toContain(`issuer: Cannot resolve '${did}': its JWK holds a private key (d)`);
  });

  it('refuses keys of other curves: a P-384 did:key', async () => {
    // p384-pub (0x1201) and a compressed point: a did:key this service does not verify with.
    const point = p384.getPublicKey(p384.utils.randomSecretKey(), true);
    const did = `did:key:z${base58.encode(Uint8Array.from([0x81, 0x24, ...point]))}`;
    const key = await foreignKey('P-256');
    const credential = await key.issue(alumniCredential(), did, `${did}#key`);
    const { status, details } = await outcome(credential);
    expect(status).toBe(422);
    expect(details).toContain(
      `issuer: Cannot resolve '${did}': only did:key DIDs of an Ed25519 (z6Mk…) or P-256 (zDn…) key are resolved`,
    );
  });
});
