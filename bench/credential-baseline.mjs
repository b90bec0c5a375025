// @ts-check
// The credential benchmark's baseline: a bare node:http server, no framework, that does the essential
// work of POST /credentials/issue and /credentials/verify (bench/credential-work.mjs), its key and its
// status list in memory. bench/run.mjs starts it as a separate process. With DATABASE_URL, JWKS_URL and
// ISSUER it is the fair baseline: it also checks the bearer token as bench/baseline.mjs does, an issue
// inserts one record into PostgreSQL and a verify reads the status bit from it.
//
// Environment: PORT (0: any free port); DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE for the fair
// baseline. Prints one JSON line {"port": n} on stdout once it listens.
import { createServer } from 'node:http';
import { bearerCheck } from './bearer.mjs';
import { credentialWork, dropWorkDatabase, workDatabase } from './credential-work.mjs';

const { PORT = '0', DATABASE_URL, JWKS_URL, ISSUER, AUDIENCE = 'agent-api' } = process.env;
const fair = Boolean(DATABASE_URL && JWKS_URL && ISSUER);
const authorize = fair ? await bearerCheck(String(JWKS_URL), ISSUER, AUDIENCE) : undefined;
// Tables of its own, in a schema of its own, dropped when it stops.
const database = fair ? await workDatabase(String(DATABASE_URL)) : undefined;
const { issue, verify } = credentialWork(database);

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
  if (database === undefined) process.exit(0);
  dropWorkDatabase(database).then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
