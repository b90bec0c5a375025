// @ts-check
/** The processes the benchmark measures (the service in local mode, the baselines, a compared
 * checkout) and their CPU time and RSS, read from /proc. */
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { env, log, root } from './settings.mjs';

export const cleanups = [];
let cleaningUp;
export function cleanUp() {
  cleaningUp ??= (async () => {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        log(`clean-up step failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  })();
  return cleaningUp;
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    void cleanUp().then(() => process.exit(130));
  });
}

/** A DATA_DIR for a local service, removed at clean-up. */
export function temporaryDataDir(prefix = 'agent-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  // When run as root the embedded PostgreSQL runs as `postgres`, which must enter the folder.
  chmodSync(dir, 0o755);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs a benchmark's main, logs what stopped it, and always cleans up. */
export async function runToTheEnd(main) {
  try {
    await main();
  } catch (error) {
    log(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

export function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
      probe.close(() => resolvePort(port));
    });
  });
}

/** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
export function stopProcess(
  child,
  graceMs = 30_000,
  signal = /** @type {NodeJS.Signals} */ ('SIGTERM'),
) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveStop(undefined);
    });
    child.kill(signal);
  });
}

/** The commit a checkout is at, for the results file; undefined outside git. */
export function commitOf(checkout) {
  try {
    return execFileSync('git', ['-C', checkout, 'rev-parse', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The service as users run it (`node dist/src/main.js`), in local mode: its own embedded PostgreSQL and
 * issuer under a temporary DATA_DIR (`extraEnv` may point it at another's). Its log (one JSON line per
 * request, as in production) goes to a file.
 */
export async function startLocalService(dataDir, checkout = root, extraEnv = {}) {
  const port = extraEnv.PORT === undefined ? await freePort() : Number(extraEnv.PORT);
  const url = `http://127.0.0.1:${port}`;
  const logFile = join(dataDir, 'service.log');
  const logFd = openSync(logFile, 'a');
  const nodeArguments = startFlags(checkout);
  if (env.BENCH_CPU_PROF) {
    mkdirSync(env.BENCH_CPU_PROF, { recursive: true });
    nodeArguments.push('--cpu-prof', `--cpu-prof-dir=${resolve(env.BENCH_CPU_PROF)}`);
  }
  const mainScript = join(checkout, 'dist/src/main.js');
  if (!existsSync(mainScript)) {
    throw new Error(`${mainScript} is missing: build that checkout (npm run build)`);
  }
  const child = spawn(process.execPath, [...nodeArguments, mainScript], {
    // Not the repository: a developer's .env there must not change what is measured.
    cwd: dataDir,
    env: {
      PATH: env.PATH,
      HOME: env.HOME,
      NODE_ENV: 'development',
      PORT: String(port),
      PUBLIC_BASE_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // Served as in production, on a port of its own: BENCH_COMPARE runs two services side by side.
      METRICS_PORT: String(await freePort()),
      // The limiters run on every request, as in production, but never refuse the load generator.
      RATE_LIMIT_CALLER_PER_MINUTE: '100000000',
      RATE_LIMIT_IP_PER_MINUTE: '100000000',
      RATE_LIMIT_CALLER_BURST: '100000000',
      RATE_LIMIT_IP_BURST: '100000000',
      HTTP_MAX_IN_FLIGHT_TOKEN: '0',
      HTTP_MAX_IN_FLIGHT_WALLET: '0',
      HTTP_MAX_IN_FLIGHT_API: '0',
      // Local mode's default, said here: SD-JWT VCs are measured signed with x5c (HAIP 1.0).
      CERTIFICATE_AUTHORITY_DEVELOPMENT: 'true',
      ...(env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: env.BENCH_SERVICE_NODE_OPTIONS } : {}),
      ...extraEnv,
    },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  cleanups.push(() => stopProcess(child));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${mainScript} exited with ${child.exitCode} at start:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) throw new Error(`${mainScript} did not start:\n${tail(logFile)}`);
    try {
      if ((await fetch(`${url}/ctrl/health/ready`)).ok) break;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  const databaseUrl = extraEnv.DATABASE_URL ?? embeddedDatabaseUrl(dataDir);
  const postgresPid = extraEnv.DATABASE_URL === undefined ? postmasterPid(dataDir) : undefined;
  return { url, pid: child.pid, child, logFile, databaseUrl, postgresPid };
}

/**
 * The Node.js flags of `npm start` in that checkout's package.json (`node <flags> dist/src/main.js`), so
 * that the service is measured as users run it and a compared checkout with its own flags.
 */
function startFlags(checkout) {
  const start = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')).scripts?.start;
  const words = typeof start === 'string' ? start.trim().split(/\s+/) : [];
  if (words[0] !== 'node') throw new Error(`${checkout}: npm start is not "node <flags> <script>"`);
  return words.slice(1).filter((word) => word.startsWith('--'));
}

/** The embedded PostgreSQL's postmaster: line 1 of postmaster.pid (PostgreSQL's documented layout). */
function postmasterPid(dataDir) {
  try {
    return Number(readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

/** The URL of the service's embedded PostgreSQL: its password file and PostgreSQL's postmaster.pid. */
function embeddedDatabaseUrl(dataDir) {
  const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
  // postmaster.pid: line 4 is the port (PostgreSQL's documented layout of the file).
  const port = readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3];
  return `postgres://agent:${encodeURIComponent(password)}@127.0.0.1:${port.trim()}/agent`;
}

export function startBaseline({ databaseUrl, jwksUrl, issuer, prepared = false }) {
  return startScript('bench/baseline.mjs', {
    DATABASE_URL: databaseUrl,
    JWKS_URL: jwksUrl,
    ISSUER: issuer,
    AUDIENCE: 'agent-api',
    PREPARED: prepared ? '1' : '0',
  });
}

/**
 * The credential baseline: no database, no issuer, its key in memory; with `fair` (the database and
 * issuer of the service) the same with the token check and a record in PostgreSQL.
 * @param {{ databaseUrl: string, jwksUrl: string, issuer: string }} [fair]
 */
export function startCredentialBaseline(fair) {
  return startScript(
    'bench/credential-baseline.mjs',
    fair === undefined
      ? {}
      : {
          DATABASE_URL: fair.databaseUrl,
          JWKS_URL: fair.jwksUrl,
          ISSUER: fair.issuer,
          AUDIENCE: 'agent-api',
        },
  );
}

/**
 * A stack floor that checks the service's access tokens (bench/credential-stack-floor.mjs,
 * bench/did-stack-floor.mjs): a baseline's work in a bare NestJS app, on the service's database and
 * against its issuer.
 * @param {string} script @param {{ databaseUrl: string, jwksUrl: string, issuer: string }} fair
 */
export function startTokenCheckedFloor(script, fair) {
  return startScript(script, {
    DATABASE_URL: fair.databaseUrl,
    JWKS_URL: fair.jwksUrl,
    ISSUER: fair.issuer,
    AUDIENCE: 'agent-api',
  });
}

/** The OpenID4VCI baseline: proof check and SD-JWT VC signing, no framework, no database. */
export function startSdJwtBaseline(issuer, nonce) {
  return startScript('bench/sd-jwt-baseline.mjs', { ISSUER: issuer, NONCE: nonce });
}

/**
 * The credential endpoint's stack floor (bench/sd-jwt-stack-floor.mjs): the SD-JWT baseline's work in a
 * bare NestJS app, with the access token read and the record written in PostgreSQL.
 */
export function startSdJwtStackFloor(databaseUrl, issuer, nonce) {
  return startScript('bench/sd-jwt-stack-floor.mjs', {
    DATABASE_URL: databaseUrl,
    ISSUER: issuer,
    NONCE: nonce,
  });
}

/** A baseline script in its own process, listening on a free port it prints as {"port": n}. */
export async function startScript(script, scriptEnv) {
  const child = spawn(process.execPath, [join(root, script)], {
    cwd: root,
    env: { PATH: env.PATH, PORT: '0', ...scriptEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => stopProcess(child));
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolvePort, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} at start`)));
    lines.once('line', (line) => resolvePort(JSON.parse(line).port));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, child };
}

/**
 * What a process used during a scenario: peak RSS (VmHWM after a reset with clear_refs 5, or VmRSS polled
 * every 100 ms where the reset is refused) and CPU time (utime + stime) from /proc.
 */
export class ProcessSampler {
  /** @param {number} pid */
  constructor(pid) {
    this.pid = pid;
    this.peakKb = 0;
    this.cpuAtStart = 0;
  }

  static kilobytes(pid, field) {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match === null ? undefined : Number(match[1]);
  }

  /** CPU seconds used so far (fields 14 and 15 of /proc/<pid>/stat, in USER_HZ = 100 ticks a second). */
  static cpuSeconds(pid) {
    const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  }

  start() {
    this.peakKb = 0;
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
      this.resetWorked = true;
    } catch {
      this.resetWorked = false;
    }
    this.cpuAtStart = ProcessSampler.cpuSeconds(this.pid);
    this.timer = setInterval(() => this.poll(), 100);
    this.poll();
  }

  poll() {
    try {
      this.peakKb = Math.max(this.peakKb, ProcessSampler.kilobytes(this.pid, 'VmRSS') ?? 0);
    } catch {
      // The process is gone; the scenario will report its errors.
    }
  }

  /** { peakRssMb, cpuSeconds } since start(). */
  stop() {
    clearInterval(this.timer);
    this.poll();
    if (this.resetWorked) {
      try {
        this.peakKb = Math.max(this.peakKb, ProcessSampler.kilobytes(this.pid, 'VmHWM') ?? 0);
      } catch {
        // Keep the polled value.
      }
    }
    return {
      peakRssMb: Math.round((this.peakKb / 1024) * 10) / 10,
      cpuSeconds: ProcessSampler.cpuSeconds(this.pid) - this.cpuAtStart,
    };
  }
}

/** CPU ticks (USER_HZ) and parent of every process, from /proc. */
function processTicks() {
  const processes = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      processes.set(Number(name), {
        parent: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
        // cutime + cstime: children it waited for (PostgreSQL's backends that ended meanwhile).
        reaped: Number(fields[13]) + Number(fields[14]),
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return processes;
}

/** CPU seconds of a process and all its descendants, with the children it reaped, from /proc. */
function treeCpuSeconds(rootPid) {
  const processes = processTicks();
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, { parent }] of processes) {
      if (!tree.has(pid) && tree.has(parent)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  let ticks = processes.get(rootPid)?.reaped ?? 0;
  for (const pid of tree) ticks += processes.get(pid)?.ticks ?? 0;
  return ticks / 100;
}

/**
 * CPU time of PostgreSQL during a scenario: its postmaster and every backend and helper under it (the
 * embedded server's processes; backends that ended meanwhile count through the postmaster's reaped time).
 */
export class PostgresSampler {
  /** @param {number} pid the postmaster */
  constructor(pid) {
    this.pid = pid;
    this.atStart = 0;
  }

  start() {
    this.atStart = treeCpuSeconds(this.pid);
  }

  /** CPU seconds since start(), or undefined where /proc cannot tell. */
  stop() {
    try {
      return treeCpuSeconds(this.pid) - this.atStart;
    } catch {
      return undefined;
    }
  }
}

/**
 * The share of all CPUs that processes outside this benchmark (not the bench, the service, its
 * PostgreSQL or the baseline) used during a scenario: other work on the machine skews every number.
 */
export class InterferenceMeter {
  /** @type {Map<number, { ticks: number, parent: number, reaped: number }>} */
  before = new Map();
  startedAt = 0;

  start() {
    this.before = processTicks();
    this.startedAt = performance.now();
  }

  /** Percent of all CPUs, or undefined where /proc cannot tell. */
  stop() {
    try {
      const after = processTicks();
      const ours = new Set([process.pid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const [pid, { parent }] of after) {
          if (!ours.has(pid) && ours.has(parent)) {
            ours.add(pid);
            grew = true;
          }
        }
      }
      let others = 0;
      for (const [pid, { ticks }] of after) {
        if (!ours.has(pid)) others += ticks - (this.before.get(pid)?.ticks ?? 0);
      }
      const seconds = (performance.now() - this.startedAt) / 1000;
      return Math.round(others / (seconds * availableParallelism()));
    } catch {
      return undefined;
    }
  }
}

/** How busy the machine is before the run (other processes skew every number): percent of all CPUs. */
export async function machineBusyPercent() {
  const sample = () => {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const values = ticks.map(Number);
    const idle = values[3] + (values[4] ?? 0);
    return { idle, total: values.reduce((sum, value) => sum + value, 0) };
  };
  try {
    const before = sample();
    await sleep(1000);
    const after = sample();
    const total = after.total - before.total;
    return Math.round((100 * (total - (after.idle - before.idle))) / Math.max(total, 1));
  } catch {
    return undefined;
  }
}
