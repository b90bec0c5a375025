// @ts-check
// The OpenID4VP benchmark's baseline: a bare node:http server, no framework, no database, that does the
// essential work of the response endpoint for one SD-JWT VC presentation
// (bench/sd-jwt-presentation-check.mjs). bench/oid4vp.mjs starts it as a separate process.
//
// Environment: PORT (0: any free port), ISSUER_JWK (the issuer's public JWK), NONCE and AUD (what the
// key binding JWTs carry). Prints one JSON line {"port": n} on stdout once it listens.
import { createServer } from 'node:http';
import { presentationCheck } from './sd-jwt-presentation-check.mjs';

const { PORT = '0', ISSUER_JWK = '{}', NONCE = 'baseline-nonce', AUD = 'baseline' } = process.env;
const check = presentationCheck(JSON.parse(ISSUER_JWK), NONCE, AUD);

/** @param {string} body */
const answer = (body) => check(new URLSearchParams(body).get('vp_token'));

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
