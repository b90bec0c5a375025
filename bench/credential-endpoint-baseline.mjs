// @ts-check
// What the bare credential-endpoint baselines (bench/sd-jwt-baseline.mjs, bench/mdoc-baseline.mjs) share:
// the JSON answer, the request body, and the proof JWT's check.
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';

/** @param {import('node:http').ServerResponse} response @param {number} status @param {unknown} body */
export function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** @param {import('node:http').IncomingMessage} request */
export async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * The proof's key, after its signature, type, audience (`issuer`), `nonce` and time are checked.
 * @param {string} proof @param {string} issuer @param {string} nonce
 * @returns {Promise<any>}
 */
export async function holderKey(proof, issuer, nonce) {
  const header = decodeProtectedHeader(proof);
  if (header.typ !== 'openid4vci-proof+jwt' || header.jwk === undefined) throw new Error('proof');
  const key = await importJWK(header.jwk, header.alg);
  const { payload } = await jwtVerify(proof, key, {
    typ: 'openid4vci-proof+jwt',
    audience: issuer,
    maxTokenAge: 300,
    algorithms: ['ES256'],
  });
  if (payload.nonce !== nonce) throw new Error('nonce');
  const { kty, crv, x, y } = header.jwk;
  return { kty, crv, x, y };
}
