// @ts-check
// What the SD-JWT baselines (bench/sd-jwt-baseline.mjs, bench/sd-jwt-stack-floor.mjs) sign: the same
// SD-JWT VC with the service's compiled code over the same library (src/credentials/sd-jwt/sd-jwt-vc.ts,
// @sd-jwt/sd-jwt-vc), ES256 with a P-256 key in memory, every claim selectively disclosable, the
// holder's key as cnf and a status index.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { issueSdJwtVc } from '../dist/src/credentials/sd-jwt/sd-jwt-vc.js';

/** The service's signing key interface over a new key in memory. */
export function baselineKey() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    kid: 'baseline',
    alg: /** @type {const} */ ('ES256'),
    sign: (/** @type {Uint8Array} */ data) =>
      Promise.resolve(
        new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
      ),
    // The service's header carries its x5c (one development leaf, about 485 bytes of DER): as many bytes.
    x5c: [randomBytes(485).toString('base64')],
  };
}

/**
 * The identity SD-JWT VC for the holder's `jwk` with status index `index`.
 * @param {string} issuer @param {import('node:crypto').JsonWebKey} jwk @param {number} index
 * @param {ReturnType<typeof baselineKey>} key
 */
export function baselineSdJwtVc(issuer, jwk, index, key) {
  const claims = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' };
  return issueSdJwtVc(
    {
      iss: issuer,
      vct: 'https://credentials.example.com/identity_credential',
      iat: Math.floor(Date.now() / 1000),
      cnfJwk: jwk,
      status: { idx: index, uri: `${issuer}/status` },
      claims,
      selectivelyDisclosable: Object.keys(claims).map((name) => [name]),
    },
    key,
  );
}
