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
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
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

function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** The proof's key, after its signature, type, audience, nonce and time are checked. */
async function holderKey(proof) {
  const header = decodeProtectedHeader(proof);
  if (header.typ !== 'openid4vci-proof+jwt' || header.jwk === undefined) throw new Error('proof');
  const key = await importJWK(header.jwk, header.alg);
  const { payload } = await jwtVerify(proof, key, {
    typ: 'openid4vci-proof+jwt',
    audience: baselineIssuer,
    maxTokenAge: 300,
    algorithms: ['ES256'],
  });
  if (payload.nonce !== baselineNonce) throw new Error('nonce');
  const { kty, crv, x, y } = header.jwk;
  return { kty, crv, x, y };
}

const server = createServer((request, response) => {
  void (async () => {
    try {
      const body = await readJson(request);
      const [proof] = body.proofs.jwt;
      const jwk = await holderKey(proof);
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
