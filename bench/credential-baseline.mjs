// @ts-check
// The credential benchmark's baseline: a bare node:http server, no framework, no database, that does the
// essential work of POST /credentials/issue and /credentials/verify with the same libraries the service
// uses (the compiled src/credentials modules over Digital Bazaar's vc and Data Integrity suites), its
// Ed25519 key in memory and its status list in memory. bench/run.mjs starts it as a separate process.
// With DATABASE_URL, JWKS_URL and ISSUER it is the fair baseline: it also checks the bearer token as
// bench/baseline.mjs does, an issue inserts one record with a random status index into PostgreSQL (a
// unique index: a taken one is drawn again), and a verify reads the status bit from PostgreSQL.
//
// Environment: PORT (0: any free port); DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE for the fair
// baseline. Prints one JSON line {"port": n} on stdout once it listens.
// First, as in the service: jsonld's contexts processed once, not at every typed node (docs/performance.md,
// "JSON-LD contexts"), so that the baselines do the essential work as the service does it.
import '../dist/src/credentials/jsonld-context-memo.js';
import { generateKeyPairSync, randomInt, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import jsonld from 'jsonld';
import pg from 'pg';
import { bearerCheck } from './bearer.mjs';
import { bundledContexts } from '../dist/src/credentials/contexts.js';
import { signCredential, verifyProofs } from '../dist/src/credentials/data-integrity.js';
import { createDocumentLoader } from '../dist/src/credentials/document-loader.js';
import { bitAt, statusListLength } from '../dist/src/credentials/status/bitstring.js';
import { ed25519DidKey } from '../dist/src/did/did-key.js';
import { ed25519PrivateKey, ed25519Signer } from '../dist/src/did/signer.js';

const { PORT = '0', DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE = 'agent-api' } = process.env;
const fair = Boolean(DATABASE_URL && JWKS_URL && ISSUER);
const authorize = fair ? await bearerCheck(String(JWKS_URL), ISSUER, AUDIENCE) : undefined;
// Same pool size as the service's data source (src/database/data-source.ts).
const pool = fair ? new pg.Pool({ connectionString: DATABASE_URL, max: 10 }) : undefined;
// Tables of its own, in a schema of its own, dropped when it stops.
const schema = `bench_fair_${process.pid}`;
if (pool !== undefined) {
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`CREATE TABLE ${schema}.credential (
    id text PRIMARY KEY, list_index integer NOT NULL UNIQUE, created_at timestamptz DEFAULT now())`);
  await pool.query(`CREATE TABLE ${schema}.list (id integer PRIMARY KEY, bits bytea NOT NULL)`);
  await pool.query(`INSERT INTO ${schema}.list VALUES (1, $1)`, [
    Buffer.alloc(statusListLength / 8),
  ]);
}
const recordSql = `INSERT INTO ${schema}.credential (id, list_index) VALUES ($1, $2)
  ON CONFLICT (list_index) DO NOTHING RETURNING list_index`;
const bitSql = `SELECT get_bit(bits, ($1::int / 8) * 8 + 7 - $1::int % 8) AS bit
  FROM ${schema}.list WHERE id = 1`;
/** Indices drawn so far: the fair baseline's one list is never allowed past half full. */
let drawn = 0;
const documentLoader = createDocumentLoader(bundledContexts());
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const seed = Buffer.from(
  /** @type {string} */ (privateKey.export({ format: 'jwk' }).d),
  'base64url',
);
const rawPublicKey = Buffer.from(
  /** @type {string} */ (publicKey.export({ format: 'jwk' }).x),
  'base64url',
);
const { did, publicKeyMultibase } = ed25519DidKey(rawPublicKey);
const verificationMethod = `${did}#${publicKeyMultibase}`;
// Imported once and kept, as the service keeps its tenants' keys (src/did/unsealed-keys.ts).
const key = ed25519PrivateKey(rawPublicKey, seed);
const signer = ed25519Signer(verificationMethod, () => key);
const listUrl = 'https://baseline.invalid/status/1';
const list = Buffer.alloc(statusListLength / 8);

function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': status < 400 ? 'application/json; charset=utf-8' : 'application/problem+json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function readJson(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/**
 * Issuer, id and a revocation entry filled in, JSON-LD checked for JCS, then signed.
 * @param {{ credential: Record<string, unknown>, options?: { cryptosuite?: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022' } }} request
 */
async function issue({ credential, options = {} }) {
  const id = credential.id ?? `urn:uuid:${randomUUID()}`;
  let index = randomInt(statusListLength);
  if (pool !== undefined) {
    if (++drawn > statusListLength / 2) {
      drawn = 0;
      await pool.query(`TRUNCATE ${schema}.credential`);
    }
    while ((await pool.query(recordSql, [id, index])).rowCount === 0) {
      index = randomInt(statusListLength);
    }
  }
  const filled = {
    ...credential,
    id,
    issuer: did,
    credentialStatus: {
      id: `${listUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: String(index),
      statusListCredential: listUrl,
    },
  };
  const cryptosuite = options.cryptosuite ?? 'eddsa-rdfc-2022';
  if (cryptosuite === 'eddsa-jcs-2022') {
    await jsonld.expand(filled, { documentLoader, safe: true });
  }
  const signed = await signCredential(filled, {
    signer,
    cryptosuite,
    date: new Date(),
    documentLoader,
  });
  return { verifiableCredential: signed };
}

/** Safe-mode expansion, every proof, the key being the issuer's, and the status bit. */
async function verify({ verifiableCredential: credential }) {
  await jsonld.expand(credential, { documentLoader, safe: true });
  const results = await verifyProofs(credential, documentLoader);
  const status = credential.credentialStatus;
  const verified =
    results.length > 0 &&
    results.every(
      (result) => result.verified && result.proof.verificationMethod === verificationMethod,
    ) &&
    credential.issuer === did &&
    !(pool === undefined
      ? bitAt(list, Number(status.statusListIndex))
      : (await pool.query(bitSql, [Number(status.statusListIndex)])).rows[0].bit === 1);
  return { verified, status: verified ? 200 : 422 };
}

const server = createServer((request, response) => {
  const route = `${request.method} ${request.url}`;
  const handle = async () => {
    if (authorize !== undefined) {
      const tenantId = request.headers['x-tenant-id'];
      const status = typeof tenantId === 'string' ? await authorize(request, tenantId) : 400;
      if (status !== 200) return send(response, status, { status });
    }
    if (route === 'POST /ctrl/api/v1.0/credentials/issue') {
      return send(response, 201, await issue(await readJson(request)));
    }
    if (route === 'POST /ctrl/api/v1.0/credentials/verify') {
      const { verified, status } = await verify(await readJson(request));
      return send(response, status, { verified });
    }
    send(response, 404, { status: 404 });
  };
  handle().catch((error) => {
    // autocannon closes its connections at the end of each slice, with requests still in flight.
    if (error?.code === 'ECONNRESET') return;
    console.error(error);
    if (!response.headersSent) send(response, 500, { status: 500 });
  });
});
server.keepAliveTimeout = 65_000;

server.listen(Number(PORT), '127.0.0.1', () => {
  console.log(
    JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port }),
  );
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  if (pool === undefined) process.exit(0);
  pool
    .query(`DROP SCHEMA ${schema} CASCADE`)
    .then(() => pool.end())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
