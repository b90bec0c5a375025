// @ts-check
// The credential endpoint's stack floor: the SD-JWT baseline's work (bench/sd-jwt-baseline.mjs: the
// proof checked, the SD-JWT VC signed) in the service's stack (bench/stack-floor.mjs) with two round
// trips to PostgreSQL: the access token's row read by its hash (a prepared statement) and the
// credential's record with a random status index inserted and committed. What it adds to the bare
// baseline is what the stack and a durable record cost; what the service adds to it is the service's own.
//
// Environment: PORT (0: any free port), DATABASE_URL, ISSUER (the proofs' audience), NONCE (their
// c_nonce), TOKEN (the one access token it accepts). Prints one JSON line {"port": n} once it listens.
import { createHash, randomInt, randomUUID } from 'node:crypto';
import { UnauthorizedException } from '@nestjs/common';
import { holderKey } from './credential-endpoint-baseline.mjs';
import { baselineKey, baselineSdJwtVc } from './sd-jwt-issue.mjs';
import { floorDatabase, serveFloor } from './stack-floor.mjs';

const {
  DATABASE_URL,
  ISSUER = 'https://baseline.invalid/issuer',
  NONCE = 'baseline-nonce',
  TOKEN = 'none',
} = process.env;

const database = await floorDatabase(DATABASE_URL, [
  'CREATE TABLE {schema}.token (hash bytea PRIMARY KEY, expires_at timestamptz)',
  `CREATE TABLE {schema}.credential (id uuid PRIMARY KEY, token_hash bytea NOT NULL,
     list_index integer NOT NULL UNIQUE, created_at timestamptz DEFAULT now())`,
]);
const { pool, schema } = database;
const hashOf = (/** @type {string} */ token) => createHash('sha256').update(token).digest();
await pool.query(`INSERT INTO ${schema}.token VALUES ($1, now() + interval '1 day')`, [
  hashOf(TOKEN),
]);
const tokenRead = {
  name: 'floor-token',
  text: `SELECT expires_at FROM ${schema}.token WHERE hash = $1 AND expires_at > now()`,
};
const recordWrite = {
  name: 'floor-record',
  text: `INSERT INTO ${schema}.credential (id, token_hash, list_index) VALUES ($1, $2, $3)
    ON CONFLICT (list_index) DO NOTHING RETURNING list_index`,
};
/** Records so far: the one list is never allowed past half full. */
let recorded = 0;
const key = baselineKey();

await serveFloor(
  {
    credential: async (body, headers) => {
      const tokenHash = hashOf(String(headers.authorization).replace(/^Bearer /, ''));
      const { rows } = await pool.query({ ...tokenRead, values: [tokenHash] });
      if (rows.length === 0) throw new UnauthorizedException();
      const jwk = holderKey(body.proofs.jwt[0], ISSUER, NONCE);
      let index;
      for (;;) {
        if (recorded >= 65_536) throw new Error('the list is half full');
        index = randomInt(131_072);
        const written = await pool.query({
          ...recordWrite,
          values: [randomUUID(), tokenHash, index],
        });
        if (written.rows.length > 0) break;
      }
      recorded++;
      const credential = await baselineSdJwtVc(ISSUER, jwk, index, key);
      return { credentials: [{ credential }], notification_id: randomUUID() };
    },
  },
  database,
);
