// @ts-check
// The W3C credential rows' stack floor: the fair credential baseline's work (bench/credential-work.mjs:
// the bearer token checked, one record inserted and the credential signed; verify with the status bit
// read) in the service's stack (bench/stack-floor.mjs). What it adds to the fair baseline is what NestJS
// and Express cost that work; what the service adds to it is the service's own.
//
// Environment: PORT (0: any free port), DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE. Prints one JSON line
// {"port": n} once it listens.
import { HttpException } from '@nestjs/common';
import { bearerCheck } from './bearer.mjs';
import { credentialWork, workDatabase } from './credential-work.mjs';
import { serveFloor } from './stack-floor.mjs';

const { DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE = 'agent-api' } = process.env;
if (!DATABASE_URL || !JWKS_URL || !ISSUER) throw new Error('DATABASE_URL, JWKS_URL and ISSUER');
const authorize = await bearerCheck(JWKS_URL, ISSUER, AUDIENCE);
const database = await workDatabase(DATABASE_URL, 'bench_floor');
const { issue, verify } = credentialWork(database);

/** The fair baseline's token check, answered as the service would refuse it. */
async function authorized(/** @type {Record<string, string | undefined>} */ headers) {
  const tenantId = headers['x-tenant-id'];
  const status = typeof tenantId === 'string' ? await authorize({ headers }, tenantId) : 400;
  if (status !== 200) throw new HttpException({ status }, status);
}

await serveFloor(
  {
    'ctrl/api/v1.0/credentials/issue': async (body, headers) => {
      await authorized(headers);
      return issue(body);
    },
    'ctrl/api/v1.0/credentials/verify': async (body, headers) => {
      await authorized(headers);
      const { verified, status } = await verify(body);
      if (status !== 200) throw new HttpException({ verified }, status);
      return { verified };
    },
  },
  database,
);
