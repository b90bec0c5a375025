import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot, sleep } from './app-process.js';
import { type Cleanup } from './cleanup.js';
import { freePort } from './ports.js';

export const nginxBinary = '/usr/sbin/nginx';
export const templatePath = join(repositoryRoot, 'nginx', 'agent.conf.template');
export const templateVariables = [
  'NGINX_PORT',
  'APP_UPSTREAMS',
  'AUTH_UPSTREAMS',
  'NGINX_RATE',
  'NGINX_BURST',
] as const;
export type TemplateValues = Record<(typeof templateVariables)[number], string>;

/**
 * Renders the template as the nginx image does (envsubst restricted to the given variables): `${NAME}`
 * and `$NAME` of those variables are replaced, nginx's own `$variables` stay.
 */
export function renderTemplate(template: string, values: TemplateValues): string {
  let rendered = template;
  for (const name of templateVariables) {
    rendered = rendered
      .replaceAll(`\${${name}}`, values[name])
      .replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), () => values[name]);
  }
  return rendered;
}

/** `server host:port ...;` lines as docker-compose gives them (max_fails as there). */
export function upstreamServers(addresses: string[], parameters = ''): string {
  return addresses
    .map((address) => `server ${address}${parameters === '' ? '' : ` ${parameters}`};`)
    .join(' ');
}

/** The minimal main config around the rendered server block: every path inside `directory`. */
export function mainConfig(directory: string, serverFile: string): string {
  return `worker_processes 1;
events { worker_connections 1024; }
http {
    client_body_temp_path ${join(directory, 'client_body')};
    proxy_temp_path ${join(directory, 'proxy')};
    fastcgi_temp_path ${join(directory, 'fastcgi')};
    uwsgi_temp_path ${join(directory, 'uwsgi')};
    scgi_temp_path ${join(directory, 'scgi')};
    log_format upstreams '$msec $request_method $request_uri $status upstream=$upstream_addr upstream_status=$upstream_status request_id=$request_id';
    access_log ${join(directory, 'access.log')} upstreams;
    include ${serverFile};
}
`;
}

function globalDirectives(directory: string): string {
  return `daemon off; pid ${join(directory, 'nginx.pid')}; error_log stderr;`;
}

/** Writes the rendered template and the main config into `directory`; returns the main config path. */
export function writeNginxConfig(directory: string, values: TemplateValues): string {
  mkdirSync(join(directory, 'logs'), { recursive: true });
  const serverFile = join(directory, 'agent.conf');
  writeFileSync(serverFile, renderTemplate(readFileSync(templatePath, 'utf8'), values));
  const configFile = join(directory, 'nginx.conf');
  writeFileSync(configFile, mainConfig(directory, serverFile));
  return configFile;
}

/** `nginx -t` on a config written by writeNginxConfig. */
export function testNginxConfig(directory: string): { status: number | null; output: string } {
  const result = spawnSync(
    nginxBinary,
    [
      '-t',
      '-p',
      directory,
      '-c',
      join(directory, 'nginx.conf'),
      '-e',
      'stderr',
      '-g',
      `pid ${join(directory, 'nginx.pid')}; error_log stderr;`,
    ],
    { encoding: 'utf8' },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export interface AccessEntry {
  /** Milliseconds since the epoch. */
  time: number;
  method: string;
  uri: string;
  status: number;
  /** host:port of each upstream tried, in order (more than one when nginx retried). */
  upstreams: string[];
  upstreamStatuses: string[];
}

const accessLinePattern =
  /^(\S+) (\S+) (\S+) (\d+) upstream=(.*) upstream_status=(.*) request_id=\S*$/;

export function parseAccessLine(line: string): AccessEntry | undefined {
  const match = accessLinePattern.exec(line);
  if (match === null) return undefined;
  return {
    time: Math.round(Number(match[1]) * 1000),
    method: match[2],
    uri: match[3],
    status: Number(match[4]),
    upstreams: match[5] === '-' ? [] : match[5].split(/,\s*/),
    upstreamStatuses: match[6] === '-' ? [] : match[6].split(/,\s*/),
  };
}

export interface Gateway {
  /** http://127.0.0.1:<port>: the public origin. */
  readonly origin: string;
  readonly port: number;
  readonly directory: string;
  readonly output: string[];
  /** nginx's access log lines (format `upstreams` above). */
  accessLog(): string[];
  /** The access log parsed: each upstream nginx tried, in order, with its status. */
  accessEntries(): AccessEntry[];
  /** `nginx -s reload`: new workers, with fresh upstream state (failures, idle connections). */
  reload(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Real nginx from the repository's template, listening on 127.0.0.1 only, in front of the given app and
 * auth upstreams (host:port each).
 */
export async function startGateway(
  options: {
    app: string[];
    auth: string[];
    directory: string;
    /** Per client address; the tests' load comes from one address, so by default far above it. */
    rate?: { rate: string; burst: string };
  },
  cleanup: Cleanup,
): Promise<Gateway> {
  const port = await freePort();
  const { directory } = options;
  writeNginxConfig(directory, {
    // An address with the port keeps the test gateway off the other interfaces.
    NGINX_PORT: `127.0.0.1:${port}`,
    APP_UPSTREAMS: upstreamServers(options.app, 'max_fails=1 fail_timeout=10s'),
    AUTH_UPSTREAMS: upstreamServers(options.auth),
    NGINX_RATE: options.rate?.rate ?? '100000r/s',
    NGINX_BURST: options.rate?.burst ?? '100000',
  });
  const child: ChildProcess = spawn(
    nginxBinary,
    [
      '-p',
      directory,
      '-c',
      join(directory, 'nginx.conf'),
      '-e',
      'stderr',
      '-g',
      globalDirectives(directory),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  let running = true;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      running = false;
      resolve();
    }),
  );
  const stop = async () => {
    if (!running) return;
    // SIGQUIT: the master lets its workers finish and takes them down with it (never SIGKILL the
    // master first, which would orphan the workers).
    child.kill('SIGQUIT');
    const timer = setTimeout(() => child.kill('SIGTERM'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  cleanup.add('stop nginx', stop);

  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (!running) throw new Error(`nginx exited at start:\n${output.join('')}`);
    try {
      // Any answer from nginx itself will do: `location /` answers 404 without an upstream.
      await fetch(`${origin}/nginx-probe`, { signal: AbortSignal.timeout(1_000) });
      break;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`nginx did not listen:\n${output.join('')}`, { cause: error });
      await sleep(100);
    }
  }
  return {
    origin,
    port,
    directory,
    output,
    accessLog: () => readAccessLog(directory),
    reload: async () => {
      child.kill('SIGHUP');
      // The master starts new workers and lets the old ones finish: give it a moment.
      await sleep(500);
      if (!running) throw new Error(`nginx exited on reload:\n${output.join('')}`);
    },
    accessEntries: () =>
      readAccessLog(directory).flatMap((line) => {
        const entry = parseAccessLine(line);
        return entry === undefined ? [] : [entry];
      }),
    stop,
  };
}

function readAccessLog(directory: string): string[] {
  try {
    return readFileSync(join(directory, 'access.log'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}
