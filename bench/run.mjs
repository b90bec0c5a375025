// npm run bench: drives the service and a bare node:http baseline with autocannon at fixed concurrency
// and duration, at 100 and at 100,000 tenants, and reports requests/s, p50/p99 latency and peak RSS per
// process (README, Performance). The baseline runs twice: as issue 6 defines it (a plain parameterized
// query), which the targets are judged against, and with the service's prepared statement, for
// information. Plain ESM on the compiled service (`npm run bench` builds first).
//
// Knobs (environment):
//   BENCH_DURATION=10        seconds measured per scenario
//   BENCH_WARMUP=2           seconds of unmeasured load before each scenario
//   BENCH_SLICES=4           the GET /did scenarios of the service and the baselines run in turns, in this
//                            many slices of BENCH_DURATION/BENCH_SLICES seconds each, so that a machine
//                            whose speed drifts during the run skews them alike
//   BENCH_CONNECTIONS=32     concurrent connections
//   BENCH_TENANTS=100        tenants created through the API for the small size
//   BENCH_FRESH_TOKENS=1500  access tokens rotated by the "new token each request" scenario: more than the
//                            service keeps verified (1,000), so that every request verifies its token
//   BENCH_SCALE_TENANTS=100000  tenants in the database for the large size (seeded in SQL); 0 skips it
//   BENCH_DEEP_PAGE=4000     the deep page of GET /tenants measured at the large size (size 20)
//   BENCH_TARGET=url         benchmark a running service instead of starting one
//   BENCH_DATABASE_URL=url   its database (with BENCH_TARGET: needed for the baseline and the seeding)
//   BENCH_TARGET_PID=pid     its process (with BENCH_TARGET: to sample its RSS on this machine)
//   BENCH_ISSUER_URL=url     the token issuer (default: the target's embedded issuer)
//   BENCH_USERNAME / BENCH_PASSWORD  a user with the realm role agent-admin (default admin/admin)
//   BENCH_CPU_PROF=dir       local mode: run the service with --cpu-prof, profiles written to dir
//   BENCH_SERVICE_NODE_OPTIONS  local mode: NODE_OPTIONS of the service, e.g. --max-old-space-size=128
//   BENCH_COMPARE=dir        local mode: also start the built checkout in dir (its own database and
//                            issuer) and measure its GET /did rows in turns with these, at the small size
//                            (rows "compare", ratios service/compare): before and after a change
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
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
import { availableParallelism, cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import autocannon from 'autocannon';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const settings = {
  duration: positive('BENCH_DURATION', 10),
  warmup: positive('BENCH_WARMUP', 2, true),
  slices: positive('BENCH_SLICES', 4),
  connections: positive('BENCH_CONNECTIONS', 32),
  tenants: positive('BENCH_TENANTS', 100),
  freshTokens: positive('BENCH_FRESH_TOKENS', 1500),
  scaleTenants: positive('BENCH_SCALE_TENANTS', 100_000, true),
  deepPage: positive('BENCH_DEEP_PAGE', 4000, true),
  pageSize: 20,
};
const target = env.BENCH_TARGET?.replace(/\/$/, '') || undefined;
/** Every id this run makes starts with it, so that a run against a shared database can clean up. */
const runPrefix = `bench${Date.now().toString(36)}`;
const apiPath = '/ctrl/api/v1.0';
let createdCount = 0;

const targets = {
  didThroughputRatio: 0.8,
  didP99Ratio: 2,
  createPerSecond: 300,
  serviceRssMb: 250,
};

function positive(name, fallback, zeroAllowed = false) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < (zeroAllowed ? 0 : 1)) {
    throw new Error(`${name} must be a whole number${zeroAllowed ? '' : ' above 0'}, not '${raw}'`);
  }
  return value;
}

function log(message) {
  process.stderr.write(`[bench] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------------
// Processes: the service (local mode), the baseline, their RSS

const cleanups = [];
let cleaningUp;
function cleanUp() {
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

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** Sends SIGTERM and waits for the exit (SIGKILL after `graceMs`). */
function stopProcess(child, graceMs = 30_000) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/** The commit a checkout is at, for the results file; undefined outside git. */
function commitOf(checkout) {
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
 * issuer under a temporary DATA_DIR. Its log (one JSON line per request, as in production) goes to a file.
 */
async function startLocalService(dataDir, checkout = root) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = join(dataDir, 'service.log');
  const logFd = openSync(logFile, 'a');
  const nodeArguments = [];
  if (env.BENCH_CPU_PROF) {
    mkdirSync(env.BENCH_CPU_PROF, { recursive: true });
    nodeArguments.push('--cpu-prof', `--cpu-prof-dir=${resolve(env.BENCH_CPU_PROF)}`);
  }
  const main = join(checkout, 'dist/src/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build that checkout (npm run build)`);
  const child = spawn(process.execPath, [...nodeArguments, main], {
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
      ...(env.BENCH_SERVICE_NODE_OPTIONS ? { NODE_OPTIONS: env.BENCH_SERVICE_NODE_OPTIONS } : {}),
    },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  cleanups.push(() => stopProcess(child));
  const deadline = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${main} exited with ${child.exitCode} at start:\n${tail(logFile)}`);
    }
    if (Date.now() > deadline) throw new Error(`${main} did not start:\n${tail(logFile)}`);
    try {
      if ((await fetch(`${url}/ctrl/health/ready`)).ok) break;
    } catch {
      // Not listening yet.
    }
    await sleep(250);
  }
  return { url, pid: child.pid, child, logFile, databaseUrl: embeddedDatabaseUrl(dataDir) };
}

/** The URL of the service's embedded PostgreSQL: its password file and PostgreSQL's postmaster.pid. */
function embeddedDatabaseUrl(dataDir) {
  const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
  // postmaster.pid: line 4 is the port (PostgreSQL's documented layout of the file).
  const port = readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3];
  return `postgres://agent:${encodeURIComponent(password)}@127.0.0.1:${port.trim()}/agent`;
}

async function startBaseline({ databaseUrl, jwksUrl, issuer, prepared = false }) {
  const child = spawn(process.execPath, [join(root, 'bench/baseline.mjs')], {
    cwd: root,
    env: {
      PATH: env.PATH,
      DATABASE_URL: databaseUrl,
      JWKS_URL: jwksUrl,
      ISSUER: issuer,
      AUDIENCE: 'agent-api',
      PORT: '0',
      PREPARED: prepared ? '1' : '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => stopProcess(child));
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise((resolvePort, reject) => {
    child.once('exit', (code) => reject(new Error(`The baseline exited with ${code} at start`)));
    lines.once('line', (line) => resolvePort(JSON.parse(line).port));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, child };
}

/**
 * What a process used during a scenario: peak RSS (VmHWM after a reset with clear_refs 5, or VmRSS polled
 * every 100 ms where the reset is refused) and CPU time (utime + stime) from /proc.
 */
class ProcessSampler {
  constructor(pid) {
    this.pid = pid;
  }

  static kilobytes(pid, field) {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match === null ? undefined : Number(match[1]);
  }

  /** CPU seconds used so far (fields 14 and 15 of /proc/<pid>/stat, in USER_HZ = 100 ticks a second). */
  static cpuSeconds(pid) {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
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
      });
    } catch {
      // Gone meanwhile.
    }
  }
  return processes;
}

/**
 * The share of all CPUs that processes outside this benchmark (not the bench, the service, its
 * PostgreSQL or the baseline) used during a scenario: other work on the machine skews every number.
 */
class InterferenceMeter {
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
async function machineBusyPercent() {
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

// ---------------------------------------------------------------------------------------------------
// HTTP: tokens and setup calls

async function discover(issuerUrl) {
  const response = await fetch(`${issuerUrl}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`OpenID discovery at ${issuerUrl}: ${response.status}`);
  return response.json();
}

/**
 * The bench user's token, renewed every 4 minutes: access tokens last 600 s, a run with long scenarios
 * lasts longer.
 */
function tokenSource(tokenEndpoint) {
  let cached;
  return async () => {
    if (cached === undefined || Date.now() - cached.at > 240_000) {
      cached = { value: await accessToken(tokenEndpoint), at: Date.now() };
    }
    return cached.value;
  };
}

async function accessToken(tokenEndpoint) {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: 'agent-client',
      grant_type: 'password',
      username: env.BENCH_USERNAME || 'admin',
      password: env.BENCH_PASSWORD || 'admin',
    }),
  });
  if (!response.ok) throw new Error(`Token request: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

/** `count` access tokens of the bench user, a few requests at a time (preparation, not measurement). */
async function accessTokens(tokenEndpoint, count) {
  const tokens = [];
  for (let start = 0; start < count; start += 8) {
    const batch = Math.min(8, count - start);
    tokens.push(
      ...(await Promise.all(Array.from({ length: batch }, () => accessToken(tokenEndpoint)))),
    );
  }
  return tokens;
}

async function createTenantsThroughApi(baseUrl, token, ids) {
  // A few at a time: this is preparation, not measurement.
  for (let start = 0; start < ids.length; start += 8) {
    await Promise.all(
      ids.slice(start, start + 8).map(async (id) => {
        const response = await fetch(
          `${baseUrl}${apiPath}/tenants/create?id=${id}&label=${encodeURIComponent(`Bench ${id}`)}`,
          { method: 'POST', headers: { authorization: `Bearer ${token}` } },
        );
        if (response.status !== 201) {
          throw new Error(`Creating tenant ${id}: ${response.status} ${await response.text()}`);
        }
      }),
    );
  }
}

// ---------------------------------------------------------------------------------------------------
// Database: seeding to the large size, table statistics

/**
 * Fills the database up to `total` tenants in SQL: ids in generate_series, and DID rows with valid did:key
 * values over random 32-byte dummy keys (never used to sign) and a dummy sealed private key.
 */
async function seedTenants(client, total) {
  const { rows } = await client.query('SELECT count(*)::int AS count FROM tenant');
  const missing = total - rows[0].count;
  if (missing <= 0) return 0;
  const prefix = `${runPrefix}-s`;
  const started = performance.now();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO tenant (id, label, created_at, updated_at)
     SELECT $1::text || lpad(n::text, 7, '0'), 'Seeded tenant ' || n, stamp, stamp
     FROM generate_series(1, $2::int) AS n,
          LATERAL (SELECT now() - interval '30 days' + n * interval '10 milliseconds' AS stamp) AS s`,
    [prefix, missing],
  );
  const batch = 20_000;
  const sealed = randomBytes(61);
  for (let first = 1; first <= missing; first += batch) {
    const ids = [];
    const dids = [];
    const keys = [];
    for (let n = first; n < Math.min(first + batch, missing + 1); n++) {
      const key = randomBytes(32);
      ids.push(`${prefix}${String(n).padStart(7, '0')}`);
      dids.push(`did:key:z${base58.encode(Buffer.concat([Buffer.of(0xed, 0x01), key]))}`);
      keys.push(key);
    }
    await client.query(
      `INSERT INTO tenant_did (did, tenant_id, method, key_type, public_key, private_key_sealed,
                               master_key_id, created_at)
       SELECT d.did, d.tenant_id, 'key', 'ed25519', d.public_key, $4, 'bench-dummy', t.created_at
       FROM unnest($1::text[], $2::text[], $3::bytea[]) AS d(tenant_id, did, public_key)
       JOIN tenant t ON t.id = d.tenant_id`,
      [ids, dids, keys, sealed],
    );
  }
  await client.query('COMMIT');
  // What autovacuum would do soon after a bulk load: statistics and the visibility map.
  await client.query('VACUUM (ANALYZE) tenant, tenant_did');
  // Write the load out now rather than during the next scenario (needs superuser or pg_checkpoint).
  await client.query('CHECKPOINT').catch(() => undefined);
  log(`seeded ${missing} tenants in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return missing;
}

async function tableScans(client) {
  // Backends flush their statistics about once a second: wait for the last flush of a scenario.
  await sleep(1100);
  const { rows } = await client.query(
    `SELECT relname, seq_scan::int AS seq, coalesce(idx_scan, 0)::int AS idx
     FROM pg_stat_user_tables WHERE relname IN ('tenant', 'tenant_did')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, { seq: row.seq, idx: row.idx }]));
}

// ---------------------------------------------------------------------------------------------------
// Load

/**
 * One autocannon run; `requestFor(counter)` gives each request's method, path and headers, and may give
 * its own access token instead of `token`.
 */
async function load(baseUrl, token, seconds, requestFor, state = { counter: 0 }) {
  const result = await autocannon({
    url: baseUrl,
    connections: settings.connections,
    duration: seconds,
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        setupRequest: (request) => {
          const next = requestFor(state.counter++);
          return {
            ...request,
            method: next.method ?? 'GET',
            path: next.path,
            headers: {
              ...request.headers,
              ...next.headers,
              authorization: `Bearer ${next.token ?? token}`,
            },
          };
        },
      },
    ],
  });
  return {
    requestsPerSecond: Math.round((result.requests.total / result.duration) * 10) / 10,
    seconds: result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    latencyMaxMs: result.latency.max,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * Runs `specs` (scenarios: name, size, process, url, pid, requestFor) in turns: each warmed up, then
 * `slices` rounds in which each is measured for its share of the duration. One spec with one slice is a
 * plain scenario. Per spec: requests/s over all its slices; p50 and p99 the highest of its slices' (never
 * below the whole run's); CPU time per request over all slices; peak RSS the highest; sequential scans
 * summed. Each spec keeps one request counter across warm-up and slices.
 */
async function interleaved(context, specs, slices) {
  const seconds = settings.duration / slices;
  const runs = [];
  for (const spec of specs) {
    const token = await (spec.token ?? context.token)();
    const run = { spec, token, state: { counter: 0 }, slices: [] };
    if (settings.warmup > 0)
      await load(spec.url, run.token, settings.warmup, spec.requestFor, run.state);
    runs.push(run);
  }
  // Table statistics: read once before the first slice, then each slice's end is the next one's start.
  let scans = context.database === undefined ? undefined : await tableScans(context.database);
  for (let slice = 0; slice < slices; slice++) {
    for (const run of runs) {
      const measured = await measureSlice(context, run, seconds, scans);
      scans = measured.scansAfter;
      run.slices.push(measured);
    }
  }
  return runs.map(({ spec, slices: measured }) => {
    const sum = (field) => measured.reduce((total, part) => total + (part[field] ?? 0), 0);
    const highest = (field) =>
      measured.some((part) => part[field] === undefined)
        ? undefined
        : Math.max(...measured.map((part) => part[field]));
    const requests = sum('requests');
    const cpuSeconds = measured.some((part) => part.cpuSeconds === undefined)
      ? undefined
      : sum('cpuSeconds');
    const row = {
      name: spec.name,
      size: spec.size,
      process: spec.process,
      requestsPerSecond: Math.round((requests / sum('seconds')) * 10) / 10,
      latencyP50Ms: highest('latencyP50Ms'),
      latencyP99Ms: highest('latencyP99Ms'),
      latencyMaxMs: highest('latencyMaxMs'),
      requests,
      non2xx: sum('non2xx'),
      errors: sum('errors'),
      timeouts: sum('timeouts'),
      peakRssMb: highest('peakRssMb'),
      cpuMsPerRequest:
        cpuSeconds === undefined || requests === 0
          ? undefined
          : Math.round(((cpuSeconds * 1000) / requests) * 1000) / 1000,
      // Counted in this checkout's database: nothing to say about BENCH_COMPARE's.
      seqScans:
        measured[0].seqScans === undefined || spec.process === compareProcess
          ? undefined
          : sumScans(measured),
      otherCpuPercent: highest('otherCpuPercent'),
      ...(slices > 1 ? { slices } : {}),
    };
    context.rows.push(row);
    const problems = row.non2xx + row.errors + row.timeouts;
    log(
      `${row.name} [${row.process}, ${row.size} tenants${slices > 1 ? `, ${slices} slices` : ''}]: ` +
        `${row.requestsPerSecond} req/s, p50 ${row.latencyP50Ms} ms, p99 ${row.latencyP99Ms} ms, ` +
        `CPU ${row.cpuMsPerRequest ?? 'n/a'} ms/request, peak RSS ${row.peakRssMb ?? 'n/a'} MB` +
        `${row.otherCpuPercent === undefined ? '' : `, other processes ${row.otherCpuPercent}% CPU`}` +
        `${problems > 0 ? `, ${problems} FAILED REQUESTS` : ''}`,
    );
    return row;
  });
}

function sumScans(measured) {
  const total = {};
  for (const part of measured)
    for (const [table, count] of Object.entries(part.seqScans ?? {}))
      total[table] = (total[table] ?? 0) + count;
  return total;
}

/** One measured stretch of one spec: autocannon's numbers plus the process's CPU time, RSS and scans. */
async function measureSlice(context, run, seconds, before) {
  const { spec } = run;
  const sampler = spec.pid === undefined ? undefined : new ProcessSampler(spec.pid);
  const interference = context.local ? new InterferenceMeter() : undefined;
  const started = performance.now();
  sampler?.start();
  interference?.start();
  const measured = await load(spec.url, run.token, seconds, spec.requestFor, run.state);
  const otherCpuPercent = interference?.stop();
  const usage = sampler?.stop();
  let seqScans;
  let scansAfter;
  if (before !== undefined) {
    scansAfter = await tableScans(context.database);
    seqScans = Object.fromEntries(
      Object.keys(scansAfter).map((table) => [
        table,
        scansAfter[table].seq - (before[table]?.seq ?? 0),
      ]),
    );
  }
  return {
    ...measured,
    seconds: measured.seconds ?? (performance.now() - started) / 1000,
    peakRssMb: usage?.peakRssMb,
    cpuSeconds: usage?.cpuSeconds,
    seqScans,
    scansAfter,
    otherCpuPercent,
  };
}

async function scenario(context, spec) {
  return (await interleaved(context, [spec], 1))[0];
}

/**
 * Rotates over `ids` so that every request looks up another tenant, and over `tokens` when given, so that
 * every request carries a token the service has not verified lately (it keeps the last 1,000).
 */
function didRequests(ids, tokens) {
  return (counter) => ({
    path: `${apiPath}/did`,
    headers: { 'x-tenant-id': ids[counter % ids.length] },
    token: tokens?.[counter % tokens.length],
  });
}

const freshTokenScenario = 'GET /did, new token each request';
const baselineProcess = 'baseline';
const preparedBaselineProcess = 'baseline, prepared';
/** BENCH_COMPARE's service: another checkout, measured in turns with this one at the small size. */
const compareProcess = 'compare';

async function measureSize(context, size, tenantIds) {
  const did = didRequests(tenantIds);
  const service = { size, process: 'service', url: context.service.url, pid: context.service.pid };
  /** A service's two GET /did rows: its token reused, and a new token of its issuer each request. */
  const didSpecs = async (spec, issuer) => {
    log(`getting ${settings.freshTokens} access tokens`);
    const tokens = await issuer.freshTokens(settings.freshTokens);
    return [
      { ...spec, name: 'GET /did', requestFor: did, token: issuer.token },
      {
        ...spec,
        name: freshTokenScenario,
        requestFor: didRequests(tenantIds, tokens),
        token: issuer.token,
      },
    ];
  };
  // The other checkout's database holds only the small size's tenants.
  const compare = size === settings.tenants ? context.compare : undefined;
  await interleaved(
    context,
    [
      ...(await didSpecs(service, context)),
      ...context.baselines.map((baseline) => ({
        name: 'GET /did',
        size,
        process: baseline.process,
        url: baseline.url,
        pid: baseline.pid,
        requestFor: did,
      })),
      ...(compare === undefined
        ? []
        : await didSpecs(
            { size, process: compareProcess, url: compare.url, pid: compare.pid },
            compare,
          )),
    ],
    settings.slices,
  );
  await scenario(context, {
    ...service,
    name: 'GET /tenants (page 0)',
    requestFor: () => ({ path: `${apiPath}/tenants?page=0&size=${settings.pageSize}` }),
  });
}

// ---------------------------------------------------------------------------------------------------
// Report

function machine() {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel =
      /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // Not Linux: keep os.cpus().
  }
  return {
    cpus: availableParallelism(),
    cpuModel,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function ratio(numerator, denominator) {
  return numerator === undefined || !denominator
    ? undefined
    : Math.round((numerator / denominator) * 100) / 100;
}

/** The row of one scenario at one size for one process. */
function findRow(rows, name, size, processName) {
  return rows.find((row) => row.name === name && row.size === size && row.process === processName);
}

function evaluate(rows) {
  const find = (name, size, processName) => findRow(rows, name, size, processName);
  const verdicts = [];
  const sizes = [...new Set(rows.map((row) => row.size))];
  // Judged twice: with the caller's token reused (answered from the verified-token cache) and with a new
  // token each request (verified like the baseline verifies every one).
  // The targets are judged against the baseline issue 6 defines; against the baseline that also prepares
  // its statement the same ratios are reported for information (pass: null).
  for (const size of sizes) {
    for (const baselineName of [baselineProcess, preparedBaselineProcess]) {
      const baseline = find('GET /did', size, baselineName);
      const judged = baselineName === baselineProcess;
      for (const [name, tokens] of [
        ['GET /did', 'token reused'],
        [freshTokenScenario, 'new token each request'],
      ]) {
        const service = find(name, size, 'service');
        if (service === undefined || baseline === undefined) continue;
        const throughput = ratio(service.requestsPerSecond, baseline.requestsPerSecond);
        const p99 = ratio(service.latencyP99Ms, baseline.latencyP99Ms);
        verdicts.push({
          target: `GET /did throughput >= ${targets.didThroughputRatio}x ${baselineName} (${size} tenants, ${tokens})`,
          value: `${throughput}x`,
          pass: judged ? throughput >= targets.didThroughputRatio : null,
        });
        verdicts.push({
          target: `GET /did p99 <= ${targets.didP99Ratio}x ${baselineName} (${size} tenants, ${tokens})`,
          value: `${p99}x (${service.latencyP99Ms} vs ${baseline.latencyP99Ms} ms)`,
          pass: judged ? p99 <= targets.didP99Ratio : null,
        });
      }
    }
  }
  const create = rows.find((row) => row.name === 'POST /tenants/create');
  if (create !== undefined) {
    verdicts.push({
      target: `tenant creation >= ${targets.createPerSecond}/s`,
      value: `${create.requestsPerSecond}/s`,
      pass: create.requestsPerSecond >= targets.createPerSecond,
    });
  }
  const rss = rows
    .filter((row) => row.process === 'service' && row.peakRssMb !== undefined)
    .map((row) => row.peakRssMb);
  if (rss.length > 0) {
    const peak = Math.max(...rss);
    verdicts.push({
      target: `service peak RSS under load < ${targets.serviceRssMb} MB`,
      value: `${peak} MB`,
      pass: peak < targets.serviceRssMb,
    });
  }
  const failed = rows.filter((row) => row.non2xx + row.errors + row.timeouts > 0);
  for (const row of failed) {
    verdicts.push({
      target: `no failed requests: ${row.name} [${row.process}, ${row.size} tenants]`,
      value: `${row.non2xx} non-2xx, ${row.errors} errors, ${row.timeouts} timeouts`,
      pass: false,
    });
  }
  return verdicts;
}

function table(headers, rows) {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells) =>
    `| ${cells.map((cell, column) => String(cell).padEnd(widths[column])).join(' | ')} |`;
  return [
    line(headers),
    `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`,
    ...rows.map(line),
  ].join('\n');
}

function report(result) {
  const { rows, verdicts } = result;
  const find = (name, size, processName) => findRow(rows, name, size, processName);
  const ratioRow = (name, size, label, service, other) =>
    service === undefined || other === undefined
      ? []
      : [
          [
            name,
            size.toLocaleString('en'),
            label,
            `${ratio(service.requestsPerSecond, other.requestsPerSecond)}x`,
            `${ratio(service.latencyP50Ms, other.latencyP50Ms)}x`,
            `${ratio(service.latencyP99Ms, other.latencyP99Ms)}x`,
            service.cpuMsPerRequest === undefined
              ? 'n/a'
              : `${ratio(service.cpuMsPerRequest, other.cpuMsPerRequest)}x`,
            service.peakRssMb === undefined
              ? 'n/a'
              : `${ratio(service.peakRssMb, other.peakRssMb)}x`,
            '',
            '',
          ],
        ];
  const sizes = [...new Set(rows.map((row) => row.size))];
  const didScenarios = ['GET /did', freshTokenScenario];
  const didRatios = sizes.flatMap((size) => [
    ...[baselineProcess, preparedBaselineProcess].flatMap((baselineName) =>
      didScenarios.flatMap((name) =>
        ratioRow(
          name,
          size,
          `service/${baselineName}`,
          find(name, size, 'service'),
          find('GET /did', size, baselineName),
        ),
      ),
    ),
    // BENCH_COMPARE: each scenario of this checkout against the same scenario of the other.
    ...didScenarios.flatMap((name) =>
      ratioRow(
        name,
        size,
        `service/${compareProcess}`,
        find(name, size, 'service'),
        find(name, size, compareProcess),
      ),
    ),
  ]);
  const lines = [
    '',
    `Machine: ${result.machine.cpus} CPUs (${result.machine.cpuModel}), ${result.machine.memoryGb} GB, ` +
      `Node ${result.machine.node}, ${result.postgres}; CPUs ${result.machineBusyPercent ?? '?'}% busy before the run`,
    `Load: autocannon, ${settings.connections} connections, ${settings.duration} s per scenario ` +
      `after ${settings.warmup} s of warm-up` +
      (settings.slices > 1
        ? `; the GET /did rows of service and baselines measured in turns, ${settings.slices} slices each`
        : '') +
      (result.settings.serviceNodeOptions
        ? `; service NODE_OPTIONS=${result.settings.serviceNodeOptions}`
        : ''),
    '',
    table(
      [
        'Scenario',
        'Tenants',
        'Process',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU ms/req',
        'peak RSS MB',
        'seq scans',
        'others CPU %',
      ],
      [
        ...rows.map((row) => [
          row.name,
          row.size.toLocaleString('en'),
          row.process,
          row.requestsPerSecond,
          row.latencyP50Ms,
          row.latencyP99Ms,
          row.cpuMsPerRequest ?? 'n/a',
          row.peakRssMb ?? 'n/a',
          row.seqScans === undefined
            ? 'n/a'
            : `${row.seqScans.tenant ?? 0}/${row.seqScans.tenant_did ?? 0}`,
          row.otherCpuPercent ?? 'n/a',
        ]),
        ...didRatios,
      ],
    ),
    '',
    ...(settings.slices > 1
      ? [
          'Measured in turns: throughput and CPU time over all slices; p50 and p99 the highest of the slices.',
        ]
      : []),
    'CPU ms/req: CPU time of that process per request. seq scans: sequential scans of tenant/tenant_did',
    'counted by PostgreSQL during the scenario. others CPU %: share of all CPUs used by processes outside',
    'this benchmark during the scenario (local mode only).',
    ...(result.machineBusyPercent > 15 || rows.some((row) => row.otherCpuPercent > 10)
      ? [
          '',
          'WARNING: other processes used the CPUs during the run (see "others CPU %"): the numbers of ' +
            'those scenarios are lower than they would be on a quiet machine.',
        ]
      : []),
    '',
    'Targets (issue 6; INFO: the same ratio against the baseline with the prepared statement, not judged):',
    ...verdicts.map(
      (verdict) =>
        `  ${verdict.pass === null ? 'INFO' : verdict.pass ? 'PASS' : 'MISS'}  ${verdict.target}: ${verdict.value}`,
    ),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------------
// The run

async function main() {
  if (env.BENCH_COMPARE && target !== undefined) {
    throw new Error('BENCH_COMPARE works in local mode only (without BENCH_TARGET)');
  }
  const started = performance.now();
  const busy = await machineBusyPercent();
  if (busy !== undefined && busy > 15)
    log(`the machine is already ${busy}% busy: results will be low`);
  const rows = [];
  let service;
  let databaseUrl = env.BENCH_DATABASE_URL || undefined;
  if (target === undefined) {
    const dataDir = mkdtempSync(join(tmpdir(), 'agent-bench-'));
    // When run as root the embedded PostgreSQL runs as `postgres`, which must enter the folder.
    chmodSync(dataDir, 0o755);
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    log(`starting the service in local mode (DATA_DIR ${dataDir})`);
    service = await startLocalService(dataDir);
    databaseUrl = service.databaseUrl;
  } else {
    const pid = env.BENCH_TARGET_PID ? Number(env.BENCH_TARGET_PID) : undefined;
    service = { url: target, pid };
    log(`benchmarking the running service at ${target}`);
  }

  const issuerUrl =
    env.BENCH_ISSUER_URL?.replace(/\/$/, '') || `${service.url}/auth/realms/agent-cloud`;
  const openIdConfiguration = await discover(issuerUrl);
  const token = tokenSource(openIdConfiguration.token_endpoint);

  let database;
  const baselines = [];
  if (databaseUrl !== undefined) {
    database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
    cleanups.push(() => database.end());
    // The baseline as issue 6 defines it, and the same with the service's prepared statement, so that
    // a saving of database work is not mistaken for one of framework overhead.
    for (const [processName, prepared] of [
      [baselineProcess, false],
      [preparedBaselineProcess, true],
    ]) {
      const started = await startBaseline({
        databaseUrl,
        jwksUrl: openIdConfiguration.jwks_uri,
        issuer: openIdConfiguration.issuer,
        prepared,
      });
      baselines.push({ ...started, process: processName });
    }
  } else {
    log('no BENCH_DATABASE_URL: no baseline, no seeding to the large size');
  }
  if (target !== undefined && database !== undefined) {
    cleanups.push(() =>
      database.query(`DELETE FROM tenant WHERE id LIKE $1`, [`${runPrefix}%`]).then(() => {
        log(`removed this run's tenants (${runPrefix}*)`);
      }),
    );
  }
  const postgres =
    database === undefined
      ? 'PostgreSQL (unknown version)'
      : `PostgreSQL ${(await database.query('SHOW server_version')).rows[0].server_version.split(' ')[0]}`;

  let compare;
  if (env.BENCH_COMPARE) {
    const checkout = resolve(env.BENCH_COMPARE);
    const compareDir = mkdtempSync(join(tmpdir(), 'agent-bench-compare-'));
    chmodSync(compareDir, 0o755);
    cleanups.push(() => rmSync(compareDir, { recursive: true, force: true }));
    log(`starting ${checkout} in local mode too, to compare (DATA_DIR ${compareDir})`);
    const started = await startLocalService(compareDir, checkout);
    const { token_endpoint: tokenEndpoint } = await discover(
      `${started.url}/auth/realms/agent-cloud`,
    );
    compare = {
      ...started,
      checkout,
      commit: commitOf(checkout),
      token: tokenSource(tokenEndpoint),
      freshTokens: (count) => accessTokens(tokenEndpoint, count),
    };
  }

  const context = {
    service,
    compare,
    baselines,
    database,
    rows,
    token,
    freshTokens: (count) => accessTokens(openIdConfiguration.token_endpoint, count),
    local: target === undefined,
  };

  // The small size: tenants made through the API.
  const smallIds = Array.from(
    { length: settings.tenants },
    (_, n) => `${runPrefix}-t${String(n).padStart(5, '0')}`,
  );
  log(`creating ${smallIds.length} tenants through the API`);
  await createTenantsThroughApi(service.url, await token(), smallIds);
  if (compare !== undefined)
    await createTenantsThroughApi(compare.url, await compare.token(), smallIds);
  await measureSize(context, settings.tenants, smallIds);
  // Creation comes last at this size: it adds tenants.
  await scenario(context, {
    name: 'POST /tenants/create',
    size: settings.tenants,
    process: 'service',
    url: service.url,
    pid: service.pid,
    // One counter for warm-up and measurement: every request creates a new tenant.
    requestFor: () => {
      const id = `${runPrefix}-c${(createdCount++).toString(36)}`;
      return { method: 'POST', path: `${apiPath}/tenants/create?id=${id}&label=Bench%20${id}` };
    },
  });

  // The large size: seeded in SQL.
  if (database !== undefined && settings.scaleTenants > settings.tenants) {
    log(`seeding the database up to ${settings.scaleTenants} tenants`);
    await seedTenants(database, settings.scaleTenants);
    const size = (await database.query('SELECT count(*)::int AS count FROM tenant')).rows[0].count;
    // 1,000 tenants spread over the whole table, so that lookups are not all in a few pages.
    const { rows: spread } = await database.query(
      `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM tenant) AS numbered
       WHERE n % greatest(1, (SELECT count(*) FROM tenant) / 1000) = 0 LIMIT 1000`,
    );
    await measureSize(
      context,
      size,
      spread.map((row) => row.id),
    );
    await scenario(context, {
      name: `GET /tenants (page ${settings.deepPage})`,
      size,
      process: 'service',
      url: service.url,
      pid: service.pid,
      requestFor: () => ({
        path: `${apiPath}/tenants?page=${settings.deepPage}&size=${settings.pageSize}`,
      }),
    });
    await scenario(context, {
      name: 'GET /tenants (q search)',
      size,
      process: 'service',
      url: service.url,
      pid: service.pid,
      // Varying searches that each match a handful of seeded labels ("Seeded tenant 4711x").
      requestFor: (counter) => ({
        path: `${apiPath}/tenants?page=0&size=${settings.pageSize}&q=tenant%20${1000 + ((counter * 7919) % 9000)}`,
      }),
    });
  }

  const result = {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    seconds: Math.round((performance.now() - started) / 1000),
    machine: machine(),
    machineBusyPercent: busy,
    postgres,
    settings: {
      ...settings,
      target: target ?? 'local',
      serviceNodeOptions: env.BENCH_SERVICE_NODE_OPTIONS || undefined,
      compare:
        compare === undefined ? undefined : { checkout: compare.checkout, commit: compare.commit },
    },
    rows,
    verdicts: evaluate(rows),
  };
  report(result);
  const resultsDir = join(root, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${result.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`results written to ${file} (${result.seconds} s)`);
}

try {
  await main();
} catch (error) {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
} finally {
  await cleanUp();
}
