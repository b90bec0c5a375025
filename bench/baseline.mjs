// @ts-check
// The benchmark's baseline: a bare node:http server, no framework, doing the essential work of
// GET /ctrl/api/v1.0/did (RS256 verification with a cached key, one indexed query, JSON out) against the
// service's own database. bench/run.mjs starts it as a separate process so that its RSS is its own.
//
// Environment: DATABASE_URL, JWKS_URL (fetched once), ISSUER, AUDIENCE, PORT (0: any free port),
// PREPARED=1: send the query as the service does, a named prepared statement (src/database/
// bounded-client.ts), instead of as a plain parameterized query.
// Prints one JSON line {"port": n} on stdout once it listens.
import { createServer } from 'node:http';
import pg from 'pg';
import { bearerCheck } from './bearer.mjs';
import { didAnswer, didQuery, didStatementName, tenantIdPattern } from './did-work.mjs';

const {
  DATABASE_URL,
  JWKS_URL,
  ISSUER,
  AUDIENCE = 'agent-api',
  PORT = '0',
  PREPARED,
} = process.env;
if (!DATABASE_URL || !JWKS_URL || !ISSUER) {
  console.error('baseline: DATABASE_URL, JWKS_URL and ISSUER are required');
  process.exit(2);
}

const authorize = await bearerCheck(JWKS_URL, ISSUER, AUDIENCE);
// Same pool size as the service's data source (src/database/data-source.ts).
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
// The service's way with PREPARED=1: a named prepared statement, parsed and planned once per connection.
const statementName = PREPARED === '1' ? didStatementName : undefined;

function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': status < 400 ? 'application/json; charset=utf-8' : 'application/problem+json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

async function getDid(request, response) {
  const tenantId = request.headers['x-tenant-id'];
  if (typeof tenantId !== 'string' || !tenantIdPattern.test(tenantId)) {
    return send(response, 400, { status: 400, code: 'TENANT_HEADER_INVALID' });
  }
  const status = await authorize(request, tenantId);
  if (status !== 200) return send(response, status, { status });
  const { rows } =
    /** @type {pg.QueryResult<{ did: string, public_key: Buffer, created_at: Date }>} */ (
      await pool.query({ name: statementName, text: didQuery, values: [tenantId] })
    );
  if (rows.length === 0) return send(response, 404, { status: 404, code: 'TENANT_NOT_FOUND' });
  send(response, 200, didAnswer(rows[0]));
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/ctrl/api/v1.0/did') {
    getDid(request, response).catch((error) => {
      console.error(error);
      if (!response.headersSent) send(response, 500, { status: 500 });
    });
  } else {
    send(response, 404, { status: 404 });
  }
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
  pool.end().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
