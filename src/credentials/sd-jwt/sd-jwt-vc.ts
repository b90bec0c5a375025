// The library's core: @sd-jwt/sd-jwt-vc adds verifying and type metadata (with zod), which issuing does not use.
import { SDJwtInstance } from '@sd-jwt/core';
import { createHash, randomBytes } from 'node:crypto';
import { type JoseSigningKey } from '../../jose/algorithms.js';
import { signingHeader } from '../../jose/jws.js';
import { type ClaimPath, disclosureFrame } from './disclosure-frame.js';

/** What an SD-JWT VC says besides its claims (SD-JWT VC draft §3.2.2). */
export interface SdJwtVcContents {
  iss: string;
  vct: string;
  /** Seconds since the epoch. */
  iat: number;
  exp?: number;
  /** The holder's public key (RFC 7800 §3.2). */
  cnfJwk: Record<string, unknown>;
  /** The entry in a Token Status List (draft-ietf-oauth-status-list §6.1). */
  status?: { idx: number; uri: string };
  claims: Record<string, unknown>;
  selectivelyDisclosable: ClaimPath[];
}

/** A fresh 128-bit salt per disclosure (RFC 9901 §4.2.1 recommends at least 128 bits), base64url. */
const salt = () => randomBytes(16).toString('base64url');

const sha256 = (data: string | ArrayBuffer, alg: string) => {
  if (alg !== 'sha-256') throw new Error(`unsupported hash algorithm ${alg}`);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
  return new Uint8Array(createHash('sha256').update(bytes).digest());
};

/**
 * An SD-JWT VC (`typ: dc+sd-jwt`) in its compact form `<jwt>~<disclosure>~...~`, without a key
 * binding JWT: the claims of `selectivelyDisclosable` paths as disclosures, `_sd_alg: sha-256`, the
 * issuer's claims plain and set after the subject's (a claim named like one is overridden). The header
 * names the key by `kid`, and by `x5c` when a certificate names it (HAIP 1.0 §6.1.1).
 */
export async function issueSdJwtVc(
  contents: SdJwtVcContents,
  key: JoseSigningKey,
): Promise<string> {
  const instance = new SDJwtInstance({
    hasher: sha256,
    hashAlg: 'sha-256',
    saltGenerator: salt,
    signAlg: key.alg,
    signer: async (input) =>
      Buffer.from(await key.sign(Buffer.from(input, 'utf8'))).toString('base64url'),
  });
  const payload = {
    ...contents.claims,
    iss: contents.iss,
    vct: contents.vct,
    iat: contents.iat,
    ...(contents.exp === undefined ? {} : { exp: contents.exp }),
    cnf: { jwk: contents.cnfJwk },
    ...(contents.status === undefined ? {} : { status: { status_list: contents.status } }),
  };
  const frame = disclosureFrame(contents.claims, contents.selectivelyDisclosable);
  // Always a frame, so that `_sd_alg` is there even when no claim is disclosable.
  return instance.issue(payload, frame as never, { header: signingHeader(key, 'dc+sd-jwt') });
}
