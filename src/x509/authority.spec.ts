import { generateKeyPairSync, sign, webcrypto, X509Certificate } from 'node:crypto';
import { issueLeaf, makeDevelopmentAuthority, readAuthority, rootOf } from './authority.js';
import { ChainRefusal, pemOf } from './certificate.js';
import { createCsr } from './csr.js';
import { libraryKey, x509 } from './x509.js';

const now = Date.UTC(2026, 0, 1);
const day = 86_400_000;

/** A P-256 key pair for a leaf: the public JWK and a signer, as the tenant's key offers them. */
function tenantKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = publicKey.export({ format: 'jwk' });
  return {
    publicJwk: { kty: 'EC' as const, crv: 'P-256' as const, x: x!, y: y! },
    privateKey,
    sign: (data: Uint8Array) =>
      Promise.resolve(
        new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
      ),
  };
}

/** A P-384 root made with the library alone, and its key as PEM. */
async function p384Root() {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=P-384 root',
    keys: libraryKey(keys),
    signingAlgorithm: algorithm,
    notBefore: new Date(now - day),
    notAfter: new Date(now + 365 * day),
    extensions: [new x509.BasicConstraintsExtension(true, 1, true)],
  });
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { pem: certificate.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** The authority's material: what an operator's files may hold and what the service signs with. */
describe('x509 authority', () => {
  const profile = (key: ReturnType<typeof tenantKey>) => ({
    commonName: 'acme',
    publicJwk: key.publicJwk,
    dnsNames: ['agent.example.com'],
    uris: ['https://agent.example.com/ctrl/oid4vci/acme'],
    notBefore: new Date(now),
    notAfter: new Date(now + 365 * day),
  });

  it('issues a leaf under a P-384 operator root that node:crypto verifies, the root found as such', async () => {
    const root = await p384Root();
    const material = readAuthority(root.pem, root.key);
    expect(rootOf(material.chain)).toBe(material.chain[0]);
    const key = tenantKey();
    const leaf = new X509Certificate(await issueLeaf(material, profile(key)));
    const anchor = new X509Certificate(material.chain[0]);
    expect(leaf.checkIssued(anchor)).toBe(true);
    expect(leaf.verify(anchor.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.publicKey.export({ format: 'jwk' })).toMatchObject({ x: key.publicJwk.x });
  });

  it('refuses a certificate that is not a CA, a key that is not its own, and text that is no key', async () => {
    const development = await makeDevelopmentAuthority('Dev', new Date(now), new Date(now + day));
    const leaf = pemOf([await issueLeaf(development, profile(tenantKey()))]);
    const leafKey = tenantKey().privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(ChainRefusal);
        return (error as ChainRefusal).message;
      }
      throw new Error('accepted');
    };
    expect(refusal(() => readAuthority(leaf, leafKey))).toMatch(/not a CA/);
    const root = await p384Root();
    expect(refusal(() => readAuthority(root.pem, leafKey))).toMatch(/not the authority/);
    expect(refusal(() => readAuthority(root.pem, 'no key'))).toMatch(/not a PEM private key/);
  });

  it('leaves no root to drop from a chain that ends with an intermediate', async () => {
    const development = await makeDevelopmentAuthority('Dev', new Date(now), new Date(now + day));
    const leaf = await issueLeaf(development, profile(tenantKey()));
    expect(rootOf([leaf])).toBeUndefined();
  });

  it('refuses to answer a CSR whose signer holds another key', async () => {
    const key = tenantKey();
    const other = tenantKey();
    const request = { ...profile(key), sign: other.sign };
    await expect(createCsr(request)).rejects.toThrow(/does not verify/);
    const csr = new x509.Pkcs10CertificateRequest(
      await createCsr({ ...profile(key), sign: key.sign }),
    );
    expect(await csr.verify()).toBe(true);
  });
});
