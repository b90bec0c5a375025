import { setGlobalConfig } from '@openid4vc/openid4vci';
import { exportJWK, importX509, jwtVerify } from 'jose';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';
import { independentVerifier, receiveCredentials } from './support/oid4vci-holder.js';
import { openid4vciWallet, walletKey } from './support/oid4vci-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  certificatesOf,
  chainsTo,
  headerOf,
  sanUris,
  verifiedByLeaf,
} from './support/x5c-chain.js';

type Json = Record<string, unknown>;

const es256Badge = {
  id: 'Badge',
  format: 'dc+sd-jwt',
  vct: 'https://univ.example/credentials/badge',
  claims: [{ path: ['given_name'], mandatory: true }],
};
const eddsaBadge = { ...es256Badge, id: 'BadgeEdDSA', signingAlgorithm: 'EdDSA' };
const claims = { given_name: 'Erika' };

/**
 * HAIP 1.0 on the issuer's side, with the test service's development authority: SD-JWT VCs signed
 * with the tenant's ES256 key and its Status List Tokens carry the tenant's x5c, checked with
 * @peculiar/x509 and jose (the leaf names `iss`, verifies the signature, chains to the authority's
 * root); the metadata comes signed too, which OWF's wallet library verifies through that x5c.
 */
describe('OpenID4VCI issuer with X.509 certificates (HAIP 1.0)', () => {
  let service: TestService;
  let issuer: string;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'univ', label: 'University of Examples' });
    for (const configuration of [es256Badge, eddsaBadge]) {
      const made = await service.request(
        '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
        { method: 'POST', headers: { 'x-tenant-id': 'univ' }, body: configuration },
      );
      expect(made.status).toBe(201);
    }
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/univ`;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service?.close();
  });

  /** The root of the service's authority (DER), which wallets trust. */
  const root = async () => (await service.app.get(CertificateAuthorityService).current())!.root!;

  /** One credential of `configurationId`, received by OWF's wallet library from the offer's link. */
  async function receive(configurationId: string, tenantId = 'univ'): Promise<string> {
    const made = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: { credentialConfigurationId: configurationId, claims },
    });
    expect(made.status).toBe(201);
    const { credentials } = await receiveCredentials(made.body.credentialOfferUri as string, [
      await walletKey('ES256'),
    ]);
    return credentials[0] as string;
  }

  it('signs an ES256 SD-JWT VC with x5c: the leaf names iss, verifies it, and chains to the root', async () => {
    const sdJwt = await receive('Badge');
    const header = headerOf(sdJwt);
    expect(header).toMatchObject({ typ: 'dc+sd-jwt', alg: 'ES256', kid: expect.any(String) });
    const chain = certificatesOf(header.x5c);
    const [leaf] = chain;
    expect(sanUris(leaf)).toEqual([issuer]);
    expect(await chainsTo(chain, await root())).toBe(true);
    // The chain is the active one the service keeps, and the kid still finds the key by iss.
    expect(header.x5c).toEqual(await service.app.get(CertificatesService).activeChain('univ'));
    const payload = await verifiedByLeaf(sdJwt);
    expect(payload).toMatchObject({ iss: issuer, vct: es256Badge.vct });
    await expect(independentVerifier().verify(sdJwt)).resolves.toBeDefined();
  });

  it('refuses to chain the x5c to a root other than the authority’s', async () => {
    const chain = certificatesOf(headerOf(await receive('Badge')).x5c);
    // The leaf as its own root: a self-made anchor the chain does not link to.
    expect(await chainsTo(chain, Buffer.from(chain[0].rawData))).toBe(false);
  });

  it('serves the Status List Token with the same x5c, verified by the leaf', async () => {
    const sdJwt = await receive('Badge');
    const signed = JSON.parse(
      Buffer.from(sdJwt.split('~')[0].split('.')[1], 'base64url').toString(),
    ) as { status: { status_list: { uri: string } } };
    const response = await fetch(signed.status.status_list.uri);
    expect(response.headers.get('content-type')).toBe('application/statuslist+jwt');
    const token = await response.text();
    const header = headerOf(token);
    expect(header).toMatchObject({ typ: 'statuslist+jwt', alg: 'ES256' });
    expect(header.x5c).toEqual(headerOf(sdJwt).x5c);
    expect(await verifiedByLeaf(token)).toMatchObject({
      iss: issuer,
      sub: signed.status.status_list.uri,
    });
  });

  it('signs an EdDSA SD-JWT VC (the DID’s Ed25519 key) without x5c: no certificate names that key', async () => {
    const sdJwt = await receive('BadgeEdDSA');
    expect(headerOf(sdJwt)).toMatchObject({ typ: 'dc+sd-jwt', alg: 'EdDSA' });
    expect(headerOf(sdJwt)).not.toHaveProperty('x5c');
    await expect(independentVerifier().verify(sdJwt)).resolves.toBeDefined();
  });

  it('puts the new certificate in the next credential and token once the old one is superseded', async () => {
    const before = await receive('Badge');
    const actor = {
      subject: 'test',
      username: 'test',
      clientId: undefined,
      roles: ['agent-admin'],
      tenantIds: [],
      requestId: undefined,
    };
    const replaced = await service.app.get(CertificatesService).issue('univ', actor);
    const after = await receive('Badge');
    const [oldLeaf] = certificatesOf(headerOf(before).x5c);
    const [newLeaf] = certificatesOf(headerOf(after).x5c);
    expect(newLeaf.serialNumber).not.toBe(oldLeaf.serialNumber);
    expect(headerOf(after).x5c).toEqual(replaced.x5c);
    expect(await chainsTo(certificatesOf(headerOf(after).x5c), await root())).toBe(true);
    await expect(verifiedByLeaf(after)).resolves.toMatchObject({ iss: issuer });
    const uri = (
      JSON.parse(Buffer.from(after.split('~')[0].split('.')[1], 'base64url').toString()) as {
        status: { status_list: { uri: string } };
      }
    ).status.status_list.uri;
    const token = await (await fetch(uri)).text();
    expect(headerOf(token).x5c).toEqual(replaced.x5c);
  });

  it('certifies a new tenant once when its first wallets come at once', async () => {
    await service.client().createTenant({ id: 'fresh', label: 'Fresh' });
    const made = await service.request('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'fresh' },
      body: es256Badge,
    });
    expect(made.status).toBe(201);
    const received = await Promise.all(Array.from({ length: 6 }, () => receive('Badge', 'fresh')));
    const chains = received.map((sdJwt) => JSON.stringify(headerOf(sdJwt).x5c));
    expect(new Set(chains).size).toBe(1);
    const [leaf] = certificatesOf(headerOf(received[0]).x5c);
    expect(sanUris(leaf)).toEqual([`${service.publicBaseUrl}/ctrl/oid4vci/fresh`]);
  });

  describe('signed metadata', () => {
    const metadataUrl = () =>
      `${service.publicBaseUrl}/.well-known/openid-credential-issuer/ctrl/oid4vci/univ`;

    it('carries signed_metadata: the parameters as claims with iss, sub, iat and exp, x5c in its header', async () => {
      const response = await fetch(metadataUrl());
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('vary')).toMatch(/Accept/);
      const metadata = (await response.json()) as Json;
      const jwt = metadata.signed_metadata as string;
      const header = headerOf(jwt);
      expect(header).toMatchObject({ typ: 'openidvci-issuer-metadata+jwt', alg: 'ES256' });
      const chain = certificatesOf(header.x5c);
      expect(sanUris(chain[0])).toEqual([issuer]);
      expect(await chainsTo(chain, await root())).toBe(true);
      // jose, with the leaf's key alone.
      const { payload } = await jwtVerify(
        jwt,
        await importX509(chain[0].toString('pem'), 'ES256'),
        {
          typ: 'openidvci-issuer-metadata+jwt',
          issuer,
          subject: issuer,
          algorithms: ['ES256'],
          requiredClaims: ['iat', 'exp'],
        },
      );
      const parameters = { ...metadata };
      delete parameters.signed_metadata;
      expect(payload).toEqual({
        ...parameters,
        iss: issuer,
        sub: issuer,
        iat: expect.any(Number),
        exp: (payload.iat as number) + 86_400,
      });
      expect(payload).not.toHaveProperty('signed_metadata');
    });

    it('answers the JWT alone to a wallet that accepts application/jwt (OpenID4VCI 1.0 §12.2.3)', async () => {
      const response = await fetch(metadataUrl(), { headers: { accept: 'application/jwt' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/jwt/);
      const jwt = await response.text();
      expect(headerOf(jwt)).toMatchObject({ typ: 'openidvci-issuer-metadata+jwt' });
      await expect(verifiedByLeaf(jwt)).resolves.toMatchObject({ sub: issuer });
    });

    it('resolves with OWF’s wallet library, plain and, given a JWT verifier, signed through the x5c', async () => {
      const plain = await openid4vciWallet([]).resolveIssuerMetadata(issuer);
      expect(plain.credentialIssuer.credential_issuer).toBe(issuer);
      expect(Object.keys(plain.knownCredentialConfigurations)).toEqual(['Badge', 'BadgeEdDSA']);

      const verified: string[] = [];
      const wallet = openid4vciWallet([], {}, async (signer, { compact }) => {
        expect(signer.method).toBe('x5c');
        verified.push((await verifiedByLeaf(compact)).sub as string);
        const [leaf] = certificatesOf((signer as { x5c: string[] }).x5c);
        const key = await importX509(leaf.toString('pem'), 'ES256', { extractable: true });
        return { verified: true, signerJwk: (await exportJWK(key)) as never };
      });
      const signed = await wallet.resolveIssuerMetadata(issuer);
      expect(verified).toEqual([issuer]);
      expect(signed.signedCredentialIssuer).toBeDefined();
      expect(signed.credentialIssuer.credential_endpoint).toBe(`${issuer}/credential`);
    });
  });
});
