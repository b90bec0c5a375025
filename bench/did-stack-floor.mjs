// @ts-check
// GET /did's stack floor: the prepared baseline's work (bench/baseline.mjs with PREPARED=1: the token
// checked, one prepared read, the answer) in the service's stack (bench/stack-floor.mjs), the token
// checked as the stack the project chose checks it: @nestjs/passport's guard, passport-jwt and
// jsonwebtoken, with the realm's keys as parsed KeyObjects, as the service keeps them. It remembers no
// verified token: each request is verified, as with a new token each request.
//
// Environment: PORT (0: any free port), DATABASE_URL, JWKS_URL (fetched once), ISSUER, AUDIENCE.
// Prints one JSON line {"port": n} once it listens.
import {
  BadRequestException,
  ForbiddenException,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { AuthGuard, PassportStrategy } from '@nestjs/passport';
import { decodeProtectedHeader } from 'jose';
import { createPublicKey } from 'node:crypto';
import { ExtractJwt, Strategy } from 'passport-jwt';
import pg from 'pg';
import { didAnswer, didQuery, didStatementName, tenantIdPattern } from './did-work.mjs';
import { serveFloor } from './stack-floor.mjs';

const { DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE = 'agent-api' } = process.env;
if (!DATABASE_URL || !JWKS_URL || !ISSUER) throw new Error('DATABASE_URL, JWKS_URL and ISSUER');

const jwksResponse = await fetch(JWKS_URL);
if (!jwksResponse.ok) throw new Error(`did stack floor: JWKS fetch failed: ${jwksResponse.status}`);
const realmKeys = new Map(
  /** @type {{ keys: (import('node:crypto').JsonWebKey & { kid?: string })[] }} */ (
    await jwksResponse.json()
  ).keys.map((jwk) => [jwk.kid, createPublicKey({ key: jwk, format: 'jwk' })]),
);

class FloorStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor() {
    super(
      /** @type {import('passport-jwt').StrategyOptionsWithRequest} */ ({
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        passReqToCallback: true,
        secretOrKeyProvider: (
          /** @type {unknown} */ _request,
          /** @type {string} */ rawJwt,
          /** @type {(error: unknown, key?: any) => void} */ done,
        ) => {
          try {
            done(null, realmKeys.get(decodeProtectedHeader(rawJwt).kid));
          } catch {
            done(null, undefined);
          }
        },
        algorithms: ['RS256'],
        issuer: ISSUER,
        audience: AUDIENCE,
        jsonWebTokenOptions: { clockTolerance: 5 },
      }),
    );
  }

  /** The baseline's claims check (bench/bearer.mjs). */
  validate(/** @type {any} */ request, /** @type {any} */ payload) {
    if (payload.typ !== 'Bearer') return false;
    const roles = payload.realm_access?.roles ?? [];
    const tenantIds = payload.tenant_ids ?? [];
    const tenantId = request.headers['x-tenant-id'];
    if (roles.includes('agent-admin')) return payload;
    if (roles.includes('agent-user') && tenantIds.includes(tenantId)) return payload;
    throw new ForbiddenException();
  }
}
Injectable()(FloorStrategy);

// Same pool size as the service's data source (src/database/data-source.ts).
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });

await serveFloor(
  {
    'GET ctrl/api/v1.0/did': async (_body, headers) => {
      const tenantId = headers['x-tenant-id'];
      if (typeof tenantId !== 'string' || !tenantIdPattern.test(tenantId))
        throw new BadRequestException();
      const { rows } = await pool.query({
        name: didStatementName,
        text: didQuery,
        values: [tenantId],
      });
      if (rows.length === 0) throw new NotFoundException();
      return didAnswer(rows[0]);
    },
  },
  { pool },
  { providers: [FloorStrategy], guards: [AuthGuard('jwt')] },
);
