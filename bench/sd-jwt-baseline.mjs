// @ts-check
// The OpenID4VCI benchmark's baseline: a bare node:http server, no framework, no database, no access
// token, that does the essential work of the credential endpoint for one proof: checks the proof JWT
// (signature, typ, aud, nonce, iat) and signs the same SD-JWT VC as the service (bench/sd-jwt-issue.mjs)
// with a random status index. bench/run.mjs starts it as a separate process.
//
// Environment: PORT (0: any free port), ISSUER (the proofs' audience), NONCE (the one c_nonce they carry).
// Prints one JSON line {"port": n} on stdout once it listens.
import { randomInt, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { holderKey, readJson, send } from './credential-endpoint-baseline.mjs';
import { baselineKey, baselineSdJwtVc } from './sd-jwt-issue.mjs';

const {
  PORT = '0',
  ISSUER: baselineIssuer = 'https://baseline.invalid/issuer',
  NONCE: baselineNonce = 'baseline-nonce',
} = process.env;

const key = baselineKey();

const server = createServer((request, response) => {
  void (async () => {
    try {
      const body = await readJson(request);
      const [proof] = body.proofs.jwt;
      const jwk = holderKey(proof, baselineIssuer, baselineNonce);
      const credential = await baselineSdJwtVc(baselineIssuer, jwk, randomInt(131_072), key);
      send(response, 200, { credentials: [{ credential }], notification_id: randomUUID() });
    } catch (error) {
      send(response, 400, { error: 'invalid_proof', error_description: String(error) });
    }
  })();
});

server.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
});
