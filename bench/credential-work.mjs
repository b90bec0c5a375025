// @ts-check
// The essential work of POST /credentials/issue and /credentials/verify, shared by the credential
// baseline (bench/credential-baseline.mjs, bare node:http) and its stack floor
// (bench/credential-stack-floor.mjs, the service's stack): the same libraries the service uses (the
// compiled src/credentials modules over Digital Bazaar's vc and Data Integrity suites), an Ed25519 key in
// memory and, with a database, one record with a random status index per issue (a unique index: a taken
// one is drawn again) and one status bit read per verify; without one the status list is in memory.
// First, as in the service: jsonld's contexts processed once, not at every typed node (docs/performance.md,
// "JSON-LD contexts"), so that the baselines do the essential work as the service does it.
import '../dist/src/credentials/jsonld-context-memo.js';
import { generateKeyPairSync, randomInt, randomUUID } from 'node:crypto';
import jsonld from 'jsonld';
import pg from 'pg';
import { bundledContexts } from '../dist/src/credentials/contexts.js';
import { signCredential, verifyProofs } from '../dist/src/credentials/data-integrity.js';
import { createDocumentLoader } from '../dist/src/credentials/document-loader.js';
import { bitAt, statusListLength } from '../dist/src/credentials/status/bitstring.js';
import { ed25519DidKey } from '../dist/src/did/did-key.js';
import { ed25519PrivateKey, ed25519Signer } from '../dist/src/did/signer.js';

/** @typedef {{ pool: pg.Pool, schema: string }} WorkDatabase */

/**
 * A pool on `databaseUrl` (as large as the service's, src/database/data-source.ts) and a schema of its
 * own named `{prefix}_{pid}`, with the records' table and one empty status list.
 * @returns {Promise<WorkDatabase>}
 */
export async function workDatabase(/** @type {string} */ databaseUrl, prefix = 'bench_fair') {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const schema = `${prefix}_${process.pid}`;
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(`CREATE TABLE ${schema}.credential (
    id text PRIMARY KEY, list_index integer NOT NULL UNIQUE, created_at timestamptz DEFAULT now())`);
  await pool.query(`CREATE TABLE ${schema}.list (id integer PRIMARY KEY, bits bytea NOT NULL)`);
  await pool.query(`INSERT INTO ${schema}.list VALUES (1, $1)`, [
    Buffer.alloc(statusListLength / 8),
  ]);
  return { pool, schema };
}

/** Drops the schema and ends the pool. */
export async function dropWorkDatabase(/** @type {WorkDatabase} */ { pool, schema }) {
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
}

/** issue and verify as the baselines answer them; `database` undefined: nothing stored. */
export function credentialWork(/** @type {WorkDatabase | undefined} */ database) {
  const recordSql = `INSERT INTO ${database?.schema}.credential (id, list_index) VALUES ($1, $2)
    ON CONFLICT (list_index) DO NOTHING RETURNING list_index`;
  const bitSql = `SELECT get_bit(bits, ($1::int / 8) * 8 + 7 - $1::int % 8) AS bit
    FROM ${database?.schema}.list WHERE id = 1`;
  /** Indices drawn so far: the one list is never allowed past half full. */
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

  /**
   * Issuer, id and a revocation entry filled in, JSON-LD checked for JCS, then signed.
   * @param {{ credential: Record<string, unknown>, options?: { cryptosuite?: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022' } }} request
   */
  async function issue({ credential, options = {} }) {
    const id = credential.id ?? `urn:uuid:${randomUUID()}`;
    let index = randomInt(statusListLength);
    if (database !== undefined) {
      if (++drawn > statusListLength / 2) {
        drawn = 0;
        await database.pool.query(`TRUNCATE ${database.schema}.credential`);
      }
      while ((await database.pool.query(recordSql, [id, index])).rowCount === 0) {
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
  async function verify(/** @type {{ verifiableCredential: any }} */ { verifiableCredential }) {
    const credential = verifiableCredential;
    await jsonld.expand(credential, { documentLoader, safe: true });
    const results = await verifyProofs(credential, documentLoader);
    const status = credential.credentialStatus;
    const verified =
      results.length > 0 &&
      results.every(
        (result) => result.verified && result.proof.verificationMethod === verificationMethod,
      ) &&
      credential.issuer === did &&
      !(database === undefined
        ? bitAt(list, Number(status.statusListIndex))
        : (await database.pool.query(bitSql, [Number(status.statusListIndex)])).rows[0].bit === 1);
    return { verified, status: verified ? 200 : 422 };
  }

  return { issue, verify };
}
