// @ts-check
// The OpenID4VP benchmark's baseline: a bare node:http server, no framework, no database, that does the
// essential work of the response endpoint for one SD-JWT VC presentation with the library the service
// uses (@sd-jwt/core): the issuer's signature with its key in memory, every disclosure's digest, the key
// binding JWT (signature by the cnf key, nonce, audience, freshness, sd_hash), and the status read from
// a list in memory. bench/oid4vp.mjs starts it as a separate process.
//
// Environment: PORT (0: any free port), ISSUER_JWK (the issuer's public JWK), NONCE and AUD (what the
// key binding JWTs carry). Prints one JSON line {"port": n} on stdout once it listens.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { createServer } from 'node:http';
import { SDJwtInstance } from '@sd-jwt/core';

const { PORT = '0', ISSUER_JWK = '{}', NONCE = 'baseline-nonce', AUD = 'baseline' } = process.env;
const issuerKey = createPublicKey({ key: JSON.parse(ISSUER_JWK), format: 'jwk' });
/** A revocation list in memory: every credential valid. */
const statusBits = Buffer.alloc(131_072 / 8);

/** @param {import('node:crypto').KeyObject} key @param {string} data @param {string} signature */
const es256Verifies = (key, data, signature) =>
  verify(
    'sha256',
    Buffer.from(data),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );

const verifier = new SDJwtInstance({
  hasher: (data, alg) => {
    if (alg !== 'sha-256') throw new Error(alg);
    const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
    return new Uint8Array(createHash('sha256').update(bytes).digest());
  },
  verifier: (data, signature) => es256Verifies(issuerKey, data, signature),
  kbVerifier: (data, signature, payload) => {
    const jwk = /** @type {any} */ (payload).cnf?.jwk;
    return es256Verifies(createPublicKey({ key: jwk, format: 'jwk' }), data, signature);
  },
});

async function answer(body) {
  const form = new URLSearchParams(body);
  const vpToken = JSON.parse(form.get('vp_token') ?? '{}');
  const [presentation] = Object.values(vpToken)[0];
  const { payload, kb } = await verifier.verify(presentation, {
    keyBindingNonce: NONCE,
    requiredClaimKeys: ['given_name', 'family_name'],
  });
  if (kb === undefined || kb.payload.aud !== AUD) throw new Error('audience');
  if (Math.abs(Date.now() / 1000 - kb.payload.iat) > 300) throw new Error('stale');
  const index = /** @type {any} */ (payload).status?.status_list?.idx ?? 0;
  if ((statusBits[index >> 3] >> (index & 7)) & 1) throw new Error('revoked');
}

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    answer(Buffer.concat(chunks).toString('utf8')).then(
      () => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 });
        response.end('{}');
      },
      (error) => {
        const text = JSON.stringify({ error: 'invalid_request', error_description: String(error) });
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end(text);
      },
    );
  });
});
server.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
});
