// @ts-check
// The OpenID4VCI benchmark's baseline: a bare node:http server, no framework, no database, no access
// token, that does the essential work of the credential endpoint for one proof: checks the proof JWT
// (jose: signature, typ, aud, nonce, iat) and signs the same SD-JWT VC with the service's compiled code
// over the same library (src/credentials/sd-jwt/sd-jwt-vc.ts, @sd-jwt/sd-jwt-vc), ES256 with a P-256 key
// in memory, every claim selectively disclosable, the
// holder's key as cnf and a random status index. bench/run.mjs starts it as a separate process.
//
// Environment: PORT (0: any free port), ISSUER (the proofs' audience), NONCE (the one c_nonce they carry).
// Prints one JSON line {"port": n} on stdout once it listens.
import { generateKeyPairSync, randomBytes, randomInt, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { holderKey, readJson, send } from './credential-endpoint-baseline.mjs';
import { issueSdJwtVc } from '../dist/src/credentials/sd-jwt/sd-jwt-vc.js';

const {
  PORT = '0',
  ISSUER: baselineIssuer = 'https://baseline.invalid/issuer',
  NONCE: baselineNonce = 'baseline-nonce',
} = process.env;

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
/** The service's signing key interface over a key in memory. */
const key = {
  kid: 'baseline',
  alg: /** @type {const} */ ('ES256'),
  /** @param {Uint8Array} data */
  sign: (data) =>
    Promise.resolve(
      new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
    ),
  // The service's header carries its x5c (one development leaf, about 485 bytes of DER): as many bytes.
  x5c: [randomBytes(485).toString('base64')],
};

const server = createServer((request, response) => {
  void (async () => {
    try {
      const body = await readJson(request);
      const [proof] = body.proofs.jwt;
      const jwk = holderKey(proof, baselineIssuer, baselineNonce);
      const claims = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' };
      const credential = await issueSdJwtVc(
        {
          iss: baselineIssuer,
          vct: 'https://credentials.example.com/identity_credential',
          iat: Math.floor(Date.now() / 1000),
          cnfJwk: jwk,
          status: { idx: randomInt(131_072), uri: `${baselineIssuer}/status` },
          claims,
          selectivelyDisclosable: Object.keys(claims).map((name) => [name]),
        },
        key,
      );
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
