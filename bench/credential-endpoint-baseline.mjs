// @ts-check
// What the bare credential-endpoint baselines (bench/sd-jwt-baseline.mjs, bench/mdoc-baseline.mjs) share:
// the JSON answer, the request body, and the proof JWT's check.
import { createPublicKey, verify } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';

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
 * The proof's key, after its signature, type, audience (`issuer`), `nonce` and time are checked, with
 * Node's crypto on a key object, as the service verifies.
 * @param {string} proof @param {string} issuer @param {string} nonce
 */
export function holderKey(proof, issuer, nonce) {
  const header = decodeProtectedHeader(proof);
  if (header.typ !== 'openid4vci-proof+jwt' || header.alg !== 'ES256' || header.jwk === undefined)
    throw new Error('proof');
  const { kty, crv, x, y } = /** @type {any} */ (header.jwk);
  const jwk = { kty, crv, x, y };
  const [protectedHeader, claims, signature] = proof.split('.');
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const input = Buffer.from(`${protectedHeader}.${claims}`);
  const signed = Buffer.from(signature, 'base64url');
  if (!verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signed))
    throw new Error('signature');
  const payload = decodeJwt(proof);
  const now = Date.now() / 1000;
  if (payload.aud !== issuer) throw new Error('aud');
  if (typeof payload.iat !== 'number' || payload.iat < now - 300 || payload.iat > now + 60)
    throw new Error('iat');
  if (payload.nonce !== nonce) throw new Error('nonce');
  return jwk;
}
