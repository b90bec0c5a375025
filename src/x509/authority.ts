import {
  createPrivateKey,
  randomBytes,
  webcrypto,
  X509Certificate as NodeCertificate,
  type KeyObject,
} from 'node:crypto';
import { ChainRefusal, parseDer, parsePemChain, selfSigned } from './certificate.js';
import { libraryKey, x509 } from './x509.js';

/** A certificate authority: its certificate, then its issuers up to the root, and its private key. */
export interface AuthorityMaterial {
  /** DER: the authority's own certificate first, its root last (the same one when it is a root). */
  chain: Buffer[];
  /** PKCS #8 DER of the private key; the caller seals it and wipes this buffer. */
  privateKey: Buffer;
}

/** The curves an authority key may be on, with the hash its signatures use (RFC 5758 §3.2). */
const curves = { 'P-256': 'SHA-256', 'P-384': 'SHA-384' } as const;
type Curve = keyof typeof curves;

/** What a leaf certificate for a tenant's key says (docs/certificates.md, The leaf). */
export interface LeafProfile {
  /** The subject's common name. */
  commonName: string;
  /** The public key certified: a P-256 JWK. */
  publicJwk: { kty: 'EC'; crv: 'P-256'; x: string; y: string };
  dnsNames: string[];
  uris: string[];
  notBefore: Date;
  notAfter: Date;
}

/** What makes a root an mdoc IACA too (ISO/IEC 18013-5 Annex B.1.2): a country and an issuer URI. */
export interface IacaNames {
  /** ISO 3166-1 alpha-2: the subject's countryName. */
  country: string;
  /** The issuer alternative name. */
  issuerUri: string;
}

/**
 * A new self-signed P-256 root for development: CA, path length 0, keyCertSign and cRLSign (RFC 5280
 * §4.2.1.9, §4.2.1.3), valid from `notBefore` to `notAfter`; with `iaca`, also the countryName and
 * issuer alternative name an mdoc IACA has (ISO/IEC 18013-5 Annex B.1.2).
 */
export async function makeDevelopmentAuthority(
  commonName: string,
  notBefore: Date,
  notAfter: Date,
  iaca?: IacaNames,
): Promise<AuthorityMaterial> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name:
      iaca === undefined ? [{ CN: [commonName] }] : [{ C: [iaca.country] }, { CN: [commonName] }],
    keys: libraryKey(keys),
    serialNumber: serialNumber(),
    signingAlgorithm: algorithm,
    notBefore,
    notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(libraryKey(keys.publicKey)),
      ...(iaca === undefined
        ? []
        : [new x509.IssuerAlternativeNameExtension([{ type: 'url', value: iaca.issuerUri }])]),
    ],
  });
  const privateKey = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  return { chain: [Buffer.from(certificate.rawData)], privateKey };
}

/**
 * An operator's authority from its PEM texts: the certificate (then its issuers), which must be a CA
 * whose key is the private key given, on P-256 or P-384. Refuses with a sentence naming what is wrong.
 */
export function readAuthority(certificatePem: string, privateKeyPem: string): AuthorityMaterial {
  const chain = parsePemChain(certificatePem).map(({ der }) => der);
  const first = parseDer(chain[0]);
  if (!first.facts.ca) {
    throw new ChainRefusal(
      'chain-broken',
      'The authority certificate is not a CA (basicConstraints cA).',
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    throw new ChainRefusal('malformed', 'The authority private key is not a PEM private key.');
  }
  curveOf(key);
  if (!new NodeCertificate(chain[0]).checkPrivateKey(key)) {
    throw new ChainRefusal(
      'key-mismatch',
      'The private key is not the authority certificate’s key.',
    );
  }
  return { chain, privateKey: key.export({ format: 'der', type: 'pkcs8' }) };
}

/** The authority's root: the last certificate of its chain when it signed itself. */
export function rootOf(chain: readonly Buffer[]): Buffer | undefined {
  const last = chain.at(-1);
  return last !== undefined && selfSigned(last) ? last : undefined;
}

/**
 * A leaf certificate for a tenant's P-256 key signed by the authority: keyUsage digitalSignature
 * (critical), not a CA, subject and authority key identifiers, a random 128-bit serial (RFC 5280 §4.1.2.2).
 */
export async function issueLeaf(
  authority: AuthorityMaterial,
  profile: LeafProfile,
): Promise<Buffer> {
  const { issuer, signingKey, signingAlgorithm } = await authoritySigner(authority);
  const publicKey = await certifiedKey(profile.publicJwk);
  const certificate = await x509.X509CertificateGenerator.create({
    subject: [{ CN: [profile.commonName] }],
    issuer: issuer.subjectName,
    publicKey,
    signingKey,
    signingAlgorithm,
    serialNumber: serialNumber(),
    notBefore: profile.notBefore,
    notAfter: profile.notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.SubjectAlternativeNameExtension([
        ...profile.dnsNames.map((value) => ({ type: 'dns' as const, value })),
        ...profile.uris.map((value) => ({ type: 'url' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey),
    ],
  });
  return Buffer.from(certificate.rawData);
}

/** What an authority signs certificates and CRLs with: its certificate, key and the algorithm for its curve. */
export async function authoritySigner(authority: AuthorityMaterial) {
  const issuer = new x509.X509Certificate(authority.chain[0]);
  const curve = curveOf(
    createPrivateKey({ key: authority.privateKey, format: 'der', type: 'pkcs8' }),
  );
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    authority.privateKey,
    { name: 'ECDSA', namedCurve: curve },
    false,
    ['sign'],
  );
  return {
    issuer,
    signingKey: libraryKey(key),
    signingAlgorithm: { name: 'ECDSA', hash: curves[curve] },
  };
}

/** The P-256 public key a certificate certifies, as the certificate library takes it. */
export async function certifiedKey(publicJwk: LeafProfile['publicJwk']) {
  const key = await webcrypto.subtle.importKey(
    'jwk',
    publicJwk,
    { name: 'ECDSA', namedCurve: 'P-256' },
    true,
    ['verify'],
  );
  return libraryKey(key);
}

/** A positive 128-bit serial number in hex: the high bit clear, so that DER needs no sign byte. */
export function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return bytes.toString('hex');
}

function curveOf(key: KeyObject): Curve {
  const curve = key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : undefined;
  if (curve === 'prime256v1') return 'P-256';
  if (curve === 'secp384r1') return 'P-384';
  throw new ChainRefusal('malformed', 'The authority key must be an EC key on P-256 or P-384.');
}
