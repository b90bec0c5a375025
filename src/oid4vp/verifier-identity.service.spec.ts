import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { type CertificatesService } from '../certificates/certificates.service.js';
import { type Settings } from '../config/settings.js';
import { type DidService } from '../did/did.service.js';
import { type Es256SigningKey, type TenantKeys } from '../did/tenant-keys.service.js';
import { issueLeaf, makeDevelopmentAuthority, type AuthorityMaterial } from '../x509/authority.js';
import { codeOf } from '../../test/support/service-fakes.js';
import { leafFitsClientId, prefixOf, x509HashClientId, x509SanDnsClientId } from './client-ids.js';
import { VerifierIdentity } from './verifier-identity.service.js';
import { signX509RequestObject } from './wallet/request-object.js';

const now = new Date('2026-06-01T00:00:00Z');
const year = 365 * 86_400_000;

/** A P-256 key pair as the tenant's ES256 key: JWS signatures r || s (IEEE P1363). */
function es256Key(): { key: Es256SigningKey; jwk: JWK } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  const key = {
    kid: 'es256-1',
    alg: 'ES256',
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! },
    sign: (data: Uint8Array) =>
      Promise.resolve(
        new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
      ),
  } as Es256SigningKey;
  return { key, jwk };
}

async function leafFor(authority: AuthorityMaterial, jwk: JWK, dnsNames: string[]) {
  return issueLeaf(authority, {
    commonName: 'acme',
    publicJwk: { kty: 'EC', crv: 'P-256', x: jwk.x!, y: jwk.y! },
    dnsNames,
    uris: ['https://agent.example/ctrl/oid4vci/acme'],
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + year),
  });
}

describe('client ids (OpenID4VP 1.0 §5.9.3)', () => {
  it('x509_hash is the base64url SHA-256 of the leaf’s DER', () => {
    const der = Buffer.from('not really a certificate');
    const hash = createHash('sha256').update(der).digest('base64url');
    expect(x509HashClientId(der)).toBe(`x509_hash:${hash}`);
    expect(hash).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('x509_san_dns is the response_uri’s host, only when the leaf names it', () => {
    expect(x509SanDnsClientId(['a.example', 'agent.example'], 'agent.example')).toBe(
      'x509_san_dns:agent.example',
    );
    expect(x509SanDnsClientId(['a.example'], 'agent.example')).toBeUndefined();
    expect(x509SanDnsClientId([], 'agent.example')).toBeUndefined();
    expect(x509SanDnsClientId(['sub.agent.example'], 'agent.example')).toBeUndefined();
  });

  it('reads the prefix of a client id', () => {
    expect(prefixOf('x509_hash:abc')).toBe('x509_hash');
    expect(prefixOf('x509_san_dns:agent.example')).toBe('x509_san_dns');
    expect(prefixOf('decentralized_identifier:did:key:z6Mk')).toBe('decentralized_identifier');
    expect(prefixOf('redirect_uri:https://a.example')).toBeUndefined();
    expect(prefixOf('no-prefix')).toBeUndefined();
  });

  it('a leaf fits the client id it made, not another leaf’s or another name', () => {
    const der = Buffer.from('leaf');
    expect(leafFitsClientId(x509HashClientId(der), der, [])).toBe(true);
    expect(leafFitsClientId(x509HashClientId(der), Buffer.from('renewed'), [])).toBe(false);
    expect(leafFitsClientId('x509_san_dns:a.example', der, ['a.example'])).toBe(true);
    expect(leafFitsClientId('x509_san_dns:a.example', der, ['b.example'])).toBe(false);
    expect(leafFitsClientId('decentralized_identifier:did:key:z6Mk', der, [])).toBe(false);
  });
});

describe(VerifierIdentity.name, () => {
  let authority: AuthorityMaterial;
  let tenantKey: ReturnType<typeof es256Key>;
  let chain: string[] | undefined;

  beforeAll(async () => {
    authority = await makeDevelopmentAuthority('Test root', now, new Date(now.getTime() + year));
  });

  beforeEach(async () => {
    tenantKey = es256Key();
    chain = [(await leafFor(authority, tenantKey.jwk, ['agent.example'])).toString('base64')];
  });

  const identity = (publicBaseUrl = 'https://agent.example') =>
    new VerifierIdentity(
      { PUBLIC_BASE_URL: publicBaseUrl } as Settings,
      {
        didsOf: (ids: string[]) => Promise.resolve(new Map(ids.map((id) => [id, 'did:key:z6Mk']))),
      } as unknown as DidService,
      { es256SigningKey: () => Promise.resolve(tenantKey.key) } as unknown as TenantKeys,
      { activeChain: () => Promise.resolve(chain) } as unknown as CertificatesService,
    );

  it('defaults to x509_hash with a certificate, to the DID without one', async () => {
    const leaf = Buffer.from(chain![0], 'base64');
    expect(await identity().clientIdFor('acme')).toBe(x509HashClientId(leaf));
    chain = undefined;
    expect(await identity().clientIdFor('acme')).toBe('decentralized_identifier:did:key:z6Mk');
  });

  it('makes each prefix asked for', async () => {
    expect(await identity().clientIdFor('acme', 'x509_san_dns')).toBe('x509_san_dns:agent.example');
    expect(await identity().clientIdFor('acme', 'decentralized_identifier')).toBe(
      'decentralized_identifier:did:key:z6Mk',
    );
  });

  it('refuses an x509 prefix without a certificate, and x509_san_dns without the host’s name', async () => {
    const refused = async (run: Promise<unknown>) => codeOf(run);
    expect(
      await refused(identity('https://other.example').clientIdFor('acme', 'x509_san_dns')),
    ).toBe('CLIENT_ID_PREFIX_UNAVAILABLE');
    chain = [(await leafFor(authority, tenantKey.jwk, [])).toString('base64')];
    expect(await refused(identity().clientIdFor('acme', 'x509_san_dns'))).toBe(
      'CLIENT_ID_PREFIX_UNAVAILABLE',
    );
    chain = undefined;
    expect(await refused(identity().clientIdFor('acme', 'x509_hash'))).toBe(
      'CLIENT_ID_PREFIX_UNAVAILABLE',
    );
  });

  it('signs an x509 request object ES256 with the chain in x5c, verifiable with the leaf’s key', async () => {
    const clientId = await identity().clientIdFor('acme');
    const signing = await identity().x509SigningFor('acme', clientId);
    expect(signing?.x5c).toEqual(chain);
    const jwt = await signX509RequestObject({ client_id: clientId }, signing!.x5c, signing!.key);
    expect(decodeProtectedHeader(jwt)).toEqual({
      alg: 'ES256',
      typ: 'oauth-authz-req+jwt',
      x5c: chain,
    });
    const { payload } = await compactVerify(jwt, await importJWK(tenantKey.jwk, 'ES256'));
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ client_id: clientId });
  });

  it('signs nothing once the certificate no longer stands for the client id or the key', async () => {
    const clientId = await identity().clientIdFor('acme');
    // Renewed: another leaf, another hash.
    chain = [(await leafFor(authority, tenantKey.jwk, ['agent.example'])).toString('base64')];
    expect(await identity().x509SigningFor('acme', clientId)).toBeUndefined();
    // A certificate of another key.
    const sanDns = await identity().clientIdFor('acme', 'x509_san_dns');
    chain = [(await leafFor(authority, es256Key().jwk, ['agent.example'])).toString('base64')];
    expect(await identity().x509SigningFor('acme', sanDns)).toBeUndefined();
    chain = undefined;
    expect(await identity().x509SigningFor('acme', sanDns)).toBeUndefined();
  });
});

describe(`${VerifierIdentity.name}, concurrent first needs`, () => {
  it('reads the chain once for callers at the same time, and again afterwards', async () => {
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const certificates = {
      activeChain: async () => {
        reads += 1;
        await gate;
        return undefined;
      },
    } as unknown as CertificatesService;
    const identity = new VerifierIdentity(
      { PUBLIC_BASE_URL: 'https://agent.example' } as Settings,
      {
        didsOf: () => Promise.resolve(new Map([['acme', 'did:key:z6Mk']])),
      } as unknown as DidService,
      {} as TenantKeys,
      certificates,
    );
    const burst = Promise.all(Array.from({ length: 5 }, () => identity.clientIdFor('acme')));
    release();
    expect(await burst).toEqual(
      Array.from({ length: 5 }, () => 'decentralized_identifier:did:key:z6Mk'),
    );
    expect(reads).toBe(1);
    await identity.clientIdFor('acme');
    expect(reads).toBe(2);
  });
});
