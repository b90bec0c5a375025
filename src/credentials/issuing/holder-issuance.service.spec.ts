import { decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import { sign } from 'node:crypto';
import { type CertificatesService } from '../../certificates/certificates.service.js';
import { type DidService } from '../../did/did.service.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { type JoseSigningKey } from '../../jose/algorithms.js';
import { HolderIssuanceService, type SdJwtVcRequest } from './holder-issuance.service.js';
import { type IssueRecorder } from './issue-recorder.js';

const chain = ['bGVhZg==', 'aW50ZXJtZWRpYXRl'];

/** A signing key over a fresh key pair of `alg`, as TenantKeys answers it. */
async function keyOf(alg: 'ES256' | 'EdDSA', kid: string): Promise<JoseSigningKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return {
    kid,
    alg,
    sign: (data) =>
      Promise.resolve(
        new Uint8Array(
          alg === 'ES256'
            ? sign('sha256', data, { key: jwk, format: 'jwk', dsaEncoding: 'ieee-p1363' })
            : sign(null, data, { key: jwk, format: 'jwk' }),
        ),
      ),
  };
}

/** The service over fakes: no status entries, the tenant's two keys, the chain its certificates hold. */
async function setUp() {
  const keys = { es256: await keyOf('ES256', 'es256-kid'), eddsa: await keyOf('EdDSA', 'ed-kid') };
  const chainReads: string[] = [];
  const service = new HolderIssuanceService(
    {
      prepare: (issuance: unknown) => ({ issuance }),
      entriesAfter: () => Promise.resolve([]),
    } as unknown as IssueRecorder,
    {
      es256SigningKey: () => Promise.resolve(keys.es256),
      eddsaSigningKey: () => Promise.resolve(keys.eddsa),
    } as unknown as TenantKeys,
    {} as DidService,
    {
      activeChain: (tenantId: string) => {
        chainReads.push(tenantId);
        return Promise.resolve(chain);
      },
    } as unknown as CertificatesService,
    () => Promise.reject(new Error('no documents')),
    () => Date.parse('2026-06-01T12:00:00Z'),
  );
  return { service, chainReads };
}

const request = (signingAlgorithm: 'ES256' | 'EdDSA'): SdJwtVcRequest => ({
  tenantId: 'acme',
  offerId: 'offer-1',
  configurationId: 'Badge',
  credentialIssuer: 'https://agent.example/ctrl/oid4vci/acme',
  format: 'dc+sd-jwt',
  vct: 'https://acme.example/badge',
  claims: { given_name: 'Erika' },
  selectivelyDisclosable: [['given_name']],
  signingAlgorithm,
  expiresInSeconds: null,
  revocable: false,
});
const holder = { jwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' } } as never;

/** Prepares and signs, as the credential endpoint does once its statement recorded them. */
function issue(
  service: HolderIssuanceService,
  issueRequest: SdJwtVcRequest,
  chainGiven?: string[],
) {
  const prepared = service.prepare(issueRequest, [holder]);
  return service.sign(issueRequest, prepared, [null], chainGiven);
}
const headerOf = (credential: unknown) =>
  decodeProtectedHeader((credential as string).split('~')[0]);

describe('HolderIssuanceService: the issuer key in an SD-JWT VC header', () => {
  it('reads the chain through the certificates service, for the caller to read before its transaction', async () => {
    const { service, chainReads } = await setUp();
    await expect(service.issuerChain('acme')).resolves.toEqual(chain);
    expect(chainReads).toEqual(['acme']);
  });

  it('puts the chain given in the header of an ES256 credential, beside its kid', async () => {
    const { service, chainReads } = await setUp();
    const [issued] = await issue(service, request('ES256'), chain);
    expect(headerOf(issued.credential)).toEqual({
      typ: 'dc+sd-jwt',
      alg: 'ES256',
      kid: 'es256-kid',
      x5c: chain,
    });
    // Signing reads no chain: the caller read it before its statement.
    expect(chainReads).toEqual([]);
  });

  it('signs without x5c when given no chain, and never puts one in an EdDSA credential', async () => {
    const { service } = await setUp();
    const [plain] = await issue(service, request('ES256'));
    expect(headerOf(plain.credential)).not.toHaveProperty('x5c');
    const [eddsa] = await issue(service, request('EdDSA'), chain);
    expect(headerOf(eddsa.credential)).toEqual({ typ: 'dc+sd-jwt', alg: 'EdDSA', kid: 'ed-kid' });
  });
});
