// @ts-check
// The response endpoint's stack floor: the presentation baseline's check
// (bench/sd-jwt-presentation-check.mjs) in the service's stack (bench/stack-floor.mjs) with two round
// trips to PostgreSQL: the request read by its state (a prepared statement) and its outcome inserted
// and committed. What it adds to the bare baseline is what the stack and a durable outcome cost; what
// the service adds to it is the service's own.
//
// Environment: PORT (0: any free port), DATABASE_URL, ISSUER_JWK (the issuer's public JWK), NONCE and AUD
// (what the key binding JWTs carry), STATE (the one request's state). Prints one JSON line {"port": n}.
import { randomUUID } from 'node:crypto';
import { BadRequestException } from '@nestjs/common';
import { presentationCheck } from './sd-jwt-presentation-check.mjs';
import { floorDatabase, serveFloor } from './stack-floor.mjs';

const {
  DATABASE_URL,
  ISSUER_JWK = '{}',
  NONCE = 'baseline-nonce',
  AUD = 'baseline',
  STATE = 'baseline',
} = process.env;
const check = presentationCheck(JSON.parse(ISSUER_JWK), NONCE, AUD);

const database = await floorDatabase(DATABASE_URL, [
  'CREATE TABLE {schema}.request (state text PRIMARY KEY, nonce text NOT NULL, aud text NOT NULL)',
  `CREATE TABLE {schema}.outcome (id uuid PRIMARY KEY, state text NOT NULL, verified boolean NOT NULL,
     created_at timestamptz DEFAULT now())`,
]);
const { pool, schema } = database;
await pool.query(`INSERT INTO ${schema}.request VALUES ($1, $2, $3)`, [STATE, NONCE, AUD]);
const requestRead = {
  name: 'floor-request',
  text: `SELECT nonce, aud FROM ${schema}.request WHERE state = $1`,
};
const outcomeWrite = {
  name: 'floor-outcome',
  text: `INSERT INTO ${schema}.outcome (id, state, verified) VALUES ($1, $2, true)`,
};

await serveFloor(
  {
    response: async (body) => {
      const { rows } = await pool.query({ ...requestRead, values: [String(body.state)] });
      if (rows.length === 0) throw new BadRequestException();
      await check(body.vp_token);
      await pool.query({ ...outcomeWrite, values: [randomUUID(), String(body.state)] });
      return {};
    },
  },
  database,
);
