// @ts-check
/**
 * The wallet rows through nginx in front of two instances on one database: the docker-compose shape,
 * its gateway rendered from nginx/agent.conf.template as the nginx image renders it.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTenantsThroughApi, discover, tokenSource } from './http.mjs';
import { measureOid4vci } from './oid4vci.mjs';
import { measureOid4vp } from './oid4vp.mjs';
import {
  cleanups,
  freePort,
  startLocalService,
  stopProcess,
  temporaryDataDir,
} from './processes.mjs';
import { log, root, runPrefix } from './settings.mjs';

export const nginxBinary = '/usr/sbin/nginx';
export const nginxProcess = 'two instances, nginx';

/** The template with its variables substituted, nginx's own `$variables` left alone (as envsubst does). */
function render(values) {
  let text = readFileSync(join(root, 'nginx/agent.conf.template'), 'utf8');
  for (const [name, value] of Object.entries(values)) {
    text = text
      .replaceAll(`\${${name}}`, value)
      .replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), () => value);
  }
  return text;
}

/** nginx on `port` in front of `app` (host:port each), its token issuer the first of them. */
async function startNginx(port, app) {
  const dir = temporaryDataDir('agent-bench-nginx-');
  const server = join(dir, 'agent.conf');
  writeFileSync(
    server,
    render({
      NGINX_PORT: `127.0.0.1:${port}`,
      APP_UPSTREAMS: app
        .map((address) => `server ${address} max_fails=1 fail_timeout=10s;`)
        .join(' '),
      AUTH_UPSTREAMS: `server ${app[0]};`,
      // The load comes from one address: far above it, as the system tests set it.
      NGINX_RATE: '100000r/s',
      NGINX_BURST: '100000',
    }),
  );
  const temp = (name) => `${name}_temp_path ${join(dir, name)};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    // worker_processes auto: the nginx image's default.
    `worker_processes auto;
events { worker_connections 1024; }
http {
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n    ')}
    access_log ${join(dir, 'access.log')};
    include ${server};
}
`,
  );
  const output = [];
  const child = spawn(
    nginxBinary,
    [
      '-p',
      dir,
      '-c',
      join(dir, 'nginx.conf'),
      '-e',
      'stderr',
      '-g',
      `daemon off; pid ${join(dir, 'nginx.pid')}; error_log stderr;`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.on('data', (chunk) => output.push(String(chunk)));
  child.stderr.on('data', (chunk) => output.push(String(chunk)));
  // SIGQUIT: the master lets its workers finish and takes them down with it.
  cleanups.push(() => stopProcess(child, 5_000, 'SIGQUIT'));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited at start:\n${output.join('')}`);
    try {
      // Any answer of nginx itself will do: `location /` answers 404.
      await fetch(`${origin}/nginx-probe`, { signal: AbortSignal.timeout(1_000) });
      return { origin, pid: child.pid };
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`nginx did not listen:\n${output.join('')}`, { cause: error });
      await sleep(100);
    }
  }
}

/**
 * Two instances (the first in local mode with its embedded PostgreSQL, the second on its database,
 * DATA_DIR and master key, as replicas share them) behind nginx; the wallet rows through the gateway.
 */
export async function measureWalletThroughNginx(context) {
  if (!existsSync(nginxBinary)) {
    log(`NOTE: ${nginxBinary} is missing: no wallet rows through nginx`);
    context.checks.push({
      target: 'wallet rows through nginx',
      value: `skipped: no ${nginxBinary}`,
      pass: null,
    });
    return;
  }
  // Stopped and removed once measured, so that the rows after these run beside nothing of theirs.
  const mark = cleanups.length;
  try {
    await measureThroughNginx(context);
  } finally {
    for (const cleanup of cleanups.splice(mark).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`clean-up step failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

async function measureThroughNginx(context) {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const firstDir = temporaryDataDir('agent-bench-nginx-one-');
  log(`wallet through nginx: starting two instances behind ${origin}`);
  const first = await startLocalService(firstDir, root, { PUBLIC_BASE_URL: origin });
  const second = await startLocalService(temporaryDataDir('agent-bench-nginx-two-'), root, {
    DATA_DIR: firstDir,
    DATABASE_URL: first.databaseUrl,
    AGENT_MASTER_KEY: readFileSync(join(firstDir, 'master.key'), 'utf8').trim(),
    PUBLIC_BASE_URL: origin,
  });
  const gateway = await startNginx(
    port,
    [first, second].map((instance) => new URL(instance.url).host),
  );
  const token = tokenSource(
    (await discover(`${gateway.origin}/auth/realms/agent-cloud`)).token_endpoint,
  );
  const [issuing, verifying] = [`${runPrefix}-n0`, `${runPrefix}-n1`];
  await createTenantsThroughApi(gateway.origin, await token(), [issuing, verifying]);
  const at = {
    url: gateway.origin,
    process: nginxProcess,
    pids: [first.pid, second.pid].filter((pid) => pid !== undefined),
    postgresPid: first.postgresPid,
    token,
  };
  await measureOid4vci(context, issuing, at, false);
  await measureOid4vp(context, issuing, verifying, at, false);
}
