import { type CoseKey, type MdocContext, type Sign1, SignatureAlgorithm } from '@owf/mdoc';
import {
  createHash,
  randomBytes,
  sign,
  verify,
  X509Certificate as NodeCertificate,
  type KeyObject,
} from 'node:crypto';
import { parseCertificate, validateChain, type Certificate } from '../x509/chain.js';
import { x509 } from '../x509/x509.js';
import { coseKeyOf, ecJwkOfKeyObject, publicKeyOf } from './cose-keys.js';

/** A holder of a P-256 key that signs with it: ES256, IEEE P1363 r || s (64 bytes). */
export type SignFunction = (data: Uint8Array) => Promise<Uint8Array>;

/** node:crypto's names of the digests an MSO may use (ISO/IEC 18013-5 §9.1.2.4). */
const hashes = { 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512' } as const;

/** ES256 signatures are r || s, 64 bytes (RFC 9053 §2.1). */
const es256 = { hash: 'sha256', signatureBytes: 64 } as const;

/**
 * The context @owf/mdoc works with, built from node:crypto and the X.509 toolbox: SHA-2 digests,
 * random bytes, COSE_Sign1 ES256 (with `signingKey`, the one key it signs with, or its signer), certificate chains
 * validated by `validateChain`. Device MACs are not offered (OpenID4VP answers carry a deviceSignature).
 */
export function mdocContext(signingKey?: KeyObject | SignFunction): MdocContext {
  return {
    crypto: {
      random: (length) => new Uint8Array(randomBytes(length)),
      digest: ({ digestAlgorithm, bytes }) =>
        new Uint8Array(createHash(hashes[digestAlgorithm]).update(bytes).digest()),
      calculateEphemeralMacKey: () => {
        throw new Error('device MAC keys are not supported');
      },
    },
    cose: {
      sign1: {
        sign: ({ toBeSigned, algorithm }) => {
          if (signingKey === undefined) throw new Error('this context has no signing key');
          if (algorithm !== undefined && algorithm !== SignatureAlgorithm.ES256) {
            throw new Error('only ES256 (-7) is signed');
          }
          if (typeof signingKey === 'function') return signingKey(toBeSigned);
          return new Uint8Array(
            sign(es256.hash, toBeSigned, { key: signingKey, dsaEncoding: 'ieee-p1363' }),
          );
        },
        verify: ({ key, sign1 }) => verifySign1(sign1, key),
      },
      mac0: {
        sign: () => {
          throw new Error('COSE_Mac0 is not supported');
        },
        verify: () => false,
      },
    },
    x509: {
      getIssuerNameField: ({ certificate, field }) =>
        new x509.X509Certificate(certificate).issuerName.getField(field),
      getPublicKey: ({ certificate }) =>
        coseKeyOf(ecJwkOfKeyObject(new NodeCertificate(certificate).publicKey)),
      verifyCertificateChain: ({ trustedCertificates, x5chain, now }) => {
        const result = validateChain(
          x5chain.map((der) => Buffer.from(der).toString('base64')),
          anchorsOf(trustedCertificates),
          now ?? new Date(),
        );
        if (!result.ok) throw new Error(result.text);
      },
      getCertificateData: ({ certificate }) => {
        const parsed = new NodeCertificate(certificate);
        return {
          issuerName: parsed.issuer,
          subjectName: parsed.subject,
          serialNumber: parsed.serialNumber,
          thumbprint: parsed.fingerprint256,
          notBefore: new Date(parsed.validFrom),
          notAfter: new Date(parsed.validTo),
          pem: parsed.toString(),
        };
      },
    },
  };
}

/** Whether a COSE_Sign1 is an ES256 signature (protected `alg` -7) that `key` verifies. */
export function verifySign1(sign1: Sign1, key: CoseKey): boolean {
  if (sign1.protectedHeaders.headers?.get(1) !== SignatureAlgorithm.ES256) return false;
  if (sign1.signature.length !== es256.signatureBytes) return false;
  try {
    return verify(
      es256.hash,
      sign1.toBeSigned,
      { key: publicKeyOf(key), dsaEncoding: 'ieee-p1363' },
      sign1.signature,
    );
  } catch {
    return false;
  }
}

/** Trust anchors (DER, base64 or PEM) parsed; one that is no certificate is left out. */
export function anchorsOf(anchors: readonly (string | Uint8Array)[]): Certificate[] {
  return anchors
    .map((anchor) => parseCertificate(anchor))
    .filter((parsed): parsed is Certificate => typeof parsed !== 'string');
}
