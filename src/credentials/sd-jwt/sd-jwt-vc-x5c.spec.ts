import { exportJWK } from 'jose';
import { type Settings } from '../../config/settings.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { parseCertificate, type Certificate } from '../../x509/chain.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { type RemoteTokenStatusLists } from './remote-token-status-lists.js';
import { type PresentationCheck } from '../wallet-presentation.types.js';
import { walletKey, type WalletKey } from '../../../test/support/oid4vci-wallet.js';
import {
  issueTestSdJwtVc,
  presentTestSdJwtVc,
  type TestIssuer,
} from '../../../test/support/sd-jwt-wallet.js';
import {
  makeCertificate,
  makePki,
  type TestCertificate,
} from '../../../test/support/x509-test-pki.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { SdJwtVcVerifier } from './sd-jwt-vc-verifier.js';

const nonce = 'n-0S6_WzA2Mj';
const clientId = 'decentralized_identifier:did:key:z6MkverifierExample';
const iss = 'https://issuer.example/credentials';

/** SD-JWT VCs made by @sd-jwt/sd-jwt-vc, signed by a leaf of a CA @peculiar/x509 made (HAIP 1.0). */
describe('SdJwtVcVerifier with x5c', () => {
  let verifier: SdJwtVcVerifier;
  let holder: WalletKey;
  let pki: Awaited<ReturnType<typeof makePki>>;
  let root: Certificate;

  beforeAll(async () => {
    const settings = { PUBLIC_BASE_URL: 'http://localhost:1' } as unknown as Settings;
    // Nothing may be fetched: an x5c credential's key is the leaf's.
    const keys = new CredentialIssuerKeys(settings, {} as TenantKeys, new DidResolution());
    verifier = new SdJwtVcVerifier(keys, {} as RemoteTokenStatusLists, () => Date.now());
    holder = await walletKey('ES256');
    pki = await makePki({ uris: [iss] });
    root = parseCertificate(pki.root.pem) as Certificate;
  });

  const issuerOf = async (leaf: TestCertificate, claimed = iss): Promise<TestIssuer> => ({
    iss: claimed,
    key: {
      alg: 'ES256',
      privateKey: leaf.keys.privateKey,
      publicJwk: await exportJWK(leaf.keys.publicKey),
    },
  });
  const present = async (issuer: TestIssuer, x5c: string[]) =>
    presentTestSdJwtVc(
      await issueTestSdJwtVc(issuer, { holder, header: { x5c } }),
      holder,
      { nonce, aud: clientId },
      { given_name: true },
    );
  const check = (presentation: string, anchors: Certificate[] | undefined) =>
    verifier.verify(
      {
        tenantId: 'acme',
        format: 'dc+sd-jwt',
        presentation,
        nonce,
        clientId,
        signal: AbortSignal.timeout(5_000),
      },
      undefined,
      () => Promise.resolve(anchors),
    );
  const failure = (result: PresentationCheck) =>
    result.verified ? 'verified' : `${result.code}: ${result.reason}`;

  it('verifies with the leaf’s key up to an anchor, and names the chain and its key identifiers', async () => {
    const presentation = await present(await issuerOf(pki.leaf), [
      pki.leaf.base64,
      pki.intermediate.base64,
    ]);
    const result = await check(presentation, [root]);
    expect(result).toMatchObject({
      verified: true,
      presentation: {
        issuer: iss,
        x5c: {
          leafSubject: pki.leaf.subject,
          anchorSubject: pki.root.subject,
          keyIdentifiers: [pki.leaf.keyId, pki.intermediate.keyId, pki.root.keyId],
        },
      },
    });
    // Without anchors, any chain that holds together.
    expect(await check(presentation, undefined)).toMatchObject({
      verified: true,
      presentation: { x5c: { anchorSubject: null } },
    });
  });

  it('refuses a chain up to no anchor of the tenant, and an expired one', async () => {
    const other = await makeCertificate('Other root', { ca: true });
    const presentation = await present(await issuerOf(pki.leaf), [
      pki.leaf.base64,
      pki.intermediate.base64,
    ]);
    expect(
      failure(await check(presentation, [parseCertificate(other.pem) as Certificate])),
    ).toMatch(
      /^issuer_not_trusted: the credential's x5c chain: the chain's last certificate .* is neither a trust anchor nor issued by one$/,
    );
    const expired = await makeCertificate('Expired issuer', {
      issuer: pki.intermediate,
      uris: [iss],
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const old = await present(await issuerOf(expired), [expired.base64, pki.intermediate.base64]);
    expect(failure(await check(old, [root]))).toMatch(
      /^certificate_chain_invalid: the credential's x5c chain: the leaf is valid from .* not at /,
    );
  });

  it('refuses a leaf that does not name iss, and a signature by another key than the leaf’s', async () => {
    const presentation = await present(await issuerOf(pki.leaf, 'https://someone-else.example'), [
      pki.leaf.base64,
      pki.intermediate.base64,
    ]);
    expect(failure(await check(presentation, [root]))).toMatch(
      /^issuer_not_trusted: the x5c leaf certificate \(CN=.*\) names no SAN URI 'https:\/\/someone-else.example' nor its host as a dNSName$/,
    );
    const stranger = await makeCertificate('Stranger', { uris: [iss] });
    const forged = await present(await issuerOf(stranger), [
      pki.leaf.base64,
      pki.intermediate.base64,
    ]);
    expect(failure(await check(forged, [root]))).toBe(
      "signature_invalid: the credential's signature does not verify with the issuer's key",
    );
  });

  it('accepts a leaf naming the https iss’s host as a dNSName, and refuses malformed x5c', async () => {
    const byHost = await makeCertificate('Host issuer', {
      issuer: pki.intermediate,
      dnsNames: ['issuer.example'],
    });
    const presentation = await present(await issuerOf(byHost), [
      byHost.base64,
      pki.intermediate.base64,
    ]);
    expect(await check(presentation, [root])).toMatchObject({ verified: true });
    const values: unknown[] = [
      ['not base64!'],
      [],
      Array<string>(6).fill(pki.leaf.base64),
      pki.leaf.base64,
      { 0: pki.leaf.base64 },
      [7],
      [[pki.leaf.base64]],
      null,
    ];
    for (const x5c of values) {
      const malformed = await present(await issuerOf(pki.leaf), x5c as string[]);
      expect(failure(await check(malformed, [root]))).toMatch(/^certificate_chain_invalid: /);
    }
  });
});
