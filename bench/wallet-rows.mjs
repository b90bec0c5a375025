// @ts-check
/**
 * The wallet rows' measurement: where they are measured (the service, or two instances behind nginx),
 * the processes' CPU and RSS and PostgreSQL's CPU sampled, a row from it, and checks of what they measured.
 */
import { InterferenceMeter, PostgresSampler, ProcessSampler } from './processes.mjs';
import { compareProcess, load } from './load.mjs';
import { log, settings } from './settings.mjs';

/**
 * Where the wallet rows are measured: the service directly, or two instances behind nginx. `pids` are
 * the service processes (CPU summed, RSS the highest), `postgresPid` the embedded PostgreSQL's postmaster.
 * @typedef {{ url: string, process: string, pids: number[], postgresPid?: number, token?: () => Promise<string> }} WalletTarget
 */

/** @returns {WalletTarget} the service of the run, measured directly */
export function serviceTarget(context) {
  const { service } = context;
  return {
    url: service.url,
    process: 'service',
    pids: service.pid === undefined ? [] : [service.pid],
    postgresPid: service.postgresPid,
  };
}

/** @returns {WalletTarget} BENCH_COMPARE's service, measured right after this one without baselines */
export function compareTarget(context) {
  const { compare } = context;
  return {
    url: compare.url,
    process: compareProcess,
    pids: compare.pid === undefined ? [] : [compare.pid],
    postgresPid: compare.postgresPid,
    token: compare.token,
  };
}

/** @param {number | undefined} seconds @param {number} requests */
export const perRequestMs = (seconds, requests) =>
  seconds === undefined || requests === 0
    ? undefined
    : Math.round(((seconds * 1000) / requests) * 1000) / 1000;

export function row(context, name, processName, measured, usage, otherCpuPercent, size = 1) {
  const result = {
    name,
    size,
    process: processName,
    requestsPerSecond: Math.round((measured.requests / measured.seconds) * 10) / 10,
    latencyP50Ms: measured.latencyP50Ms,
    latencyP99Ms: measured.latencyP99Ms,
    requests: measured.requests,
    non2xx: measured.non2xx ?? 0,
    errors: measured.errors ?? 0,
    timeouts: measured.timeouts ?? 0,
    peakRssMb: usage?.peakRssMb,
    cpuMsPerRequest: perRequestMs(usage?.cpuSeconds, measured.requests),
    postgresCpuMsPerRequest: perRequestMs(usage?.postgresCpuSeconds, measured.requests),
    otherCpuPercent,
  };
  context.rows.push(result);
  log(
    `${name} [${processName}${size === 1 ? '' : `, ${size} tenants`}]: ${result.requestsPerSecond}/s, p50 ${result.latencyP50Ms} ms, ` +
      `p99 ${result.latencyP99Ms} ms, CPU ${result.cpuMsPerRequest ?? 'n/a'} ms each ` +
      `(PostgreSQL ${result.postgresCpuMsPerRequest ?? 'n/a'}), peak RSS ${result.peakRssMb ?? 'n/a'} MB` +
      `${result.non2xx + result.errors + result.timeouts > 0 ? ', FAILED REQUESTS' : ''}`,
  );
}

/**
 * Measures `run` with the processes' CPU (summed) and RSS (the highest) sampled, PostgreSQL's CPU when
 * its postmaster is known, and other processes' CPU metered.
 * @param {number | number[] | undefined} pids
 * @param {() => Promise<any>} run
 * @param {number} [postgresPid]
 */
export async function sampled(pids, run, postgresPid) {
  const samplers = [pids ?? []].flat().map((pid) => new ProcessSampler(pid));
  const postgres = postgresPid === undefined ? undefined : new PostgresSampler(postgresPid);
  const interference = new InterferenceMeter();
  for (const sampler of samplers) sampler.start();
  postgres?.start();
  interference.start();
  const measured = await run();
  const otherCpuPercent = interference.stop();
  const postgresCpuSeconds = postgres?.stop();
  const usages = samplers.map((sampler) => sampler.stop());
  const usage =
    usages.length === 0
      ? undefined
      : {
          peakRssMb: Math.max(...usages.map((one) => one.peakRssMb)),
          cpuSeconds: usages.reduce((total, one) => total + one.cpuSeconds, 0),
          postgresCpuSeconds,
        };
  return { measured, usage, otherCpuPercent };
}

/** The `fraction` percentile of `values` (nearest rank), in whole ms rounded down as autocannon's. */
function percentile(values, fraction) {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.floor(sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)]);
}

/**
 * Sums the slices of one row: throughput over all; p50 and p99 over all their requests when each slice
 * kept its answers' times, else the highest of the slices'; peak RSS the highest.
 */
export function combine(parts) {
  const sum = (pick) => parts.reduce((total, part) => total + (pick(part) ?? 0), 0);
  const highest = (pick) => Math.max(...parts.map((part) => pick(part) ?? 0));
  const known = (pick) => parts.every((part) => pick(part) !== undefined);
  const latencies = known((part) => part.latencies)
    ? parts.flatMap((part) => part.latencies)
    : undefined;
  const latency = (fraction, pick) =>
    latencies === undefined || latencies.length === 0
      ? highest(pick)
      : percentile(latencies, fraction);
  return {
    measured: {
      requests: sum((part) => part.measured.requests),
      seconds: sum((part) => part.measured.seconds),
      latencyP50Ms: latency(0.5, (part) => part.measured.latencyP50Ms),
      latencyP99Ms: latency(0.99, (part) => part.measured.latencyP99Ms),
      non2xx: sum((part) => part.measured.non2xx),
      errors: sum((part) => part.measured.errors),
      timeouts: sum((part) => part.measured.timeouts),
    },
    usage: known((part) => part.usage)
      ? {
          peakRssMb: highest((part) => part.usage.peakRssMb),
          cpuSeconds: sum((part) => part.usage.cpuSeconds),
          postgresCpuSeconds: known((part) => part.usage.postgresCpuSeconds)
            ? sum((part) => part.usage.postgresCpuSeconds)
            : undefined,
        }
      : undefined,
    otherCpuPercent: highest((part) => part.otherCpuPercent),
  };
}

/**
 * Rows measured in turns, so that the machine's drift skews them alike: each turn warmed up with
 * what `prepare` makes for `warmUpCount` unmeasured, then `settings.slices` rounds in which each sends
 * what `prepare` makes for `count` just before (each request is sent once), which goes first
 * alternating so that none always follows another's preparation. Answers each turn's slices combined.
 * @template Turn
 * @param {Turn[]} turns
 * @param {number} count
 * @param {(turn: Turn, count: number) => Promise<any[]>} prepare
 * @param {(turn: Turn, requests: any[]) => Promise<any>} measure
 * @param {number} [warmUpCount]
 */
export async function measuredInTurns(
  turns,
  count,
  prepare,
  measure,
  warmUpCount = 2 * settings.connections,
) {
  if (settings.warmup > 0)
    for (const turn of turns) await measure(turn, await prepare(turn, warmUpCount));
  const parts = turns.map(() => /** @type {any[]} */ ([]));
  for (let slice = 0; slice < settings.slices; slice++) {
    const entries = [...turns.entries()];
    for (const [index, turn] of slice % 2 === 0 ? entries : entries.reverse())
      parts[index].push(await measure(turn, await prepare(turn, count)));
  }
  return parts.map(combine);
}

/** A check the run reports beside the targets: here that the rows measured what their labels say. */
export function check(context, target, value, pass) {
  context.checks.push({ target, value, pass });
  if (!pass) log(`CHECK FAILED: ${target}: ${value}`);
}

/**
 * `prepare` for a response row, checking once, on its first answers, that their requests were signed
 * with x5c and name x509_hash client ids (HAIP 1.0), as the row's label says.
 * @param {any} context @param {string} row the row's name in the check
 * @param {(count: number) => Promise<{ clientId: string, x5c: number }[]>} prepare
 */
export function checkingClientIds(context, row, prepare) {
  let checked = false;
  return async (/** @type {number} */ count) => {
    const answers = await prepare(count);
    if (!checked) {
      const [first] = answers;
      check(
        context,
        `${row}'s requests are signed with x5c, x509_hash client ids`,
        `${first.clientId.split(':')[0]}, x5c of ${first.x5c} certificate(s)`,
        first.clientId.startsWith('x509_hash:') && first.x5c > 0,
      );
      checked = true;
    }
    return answers;
  };
}

/**
 * A turn of a wallet row: where it is measured, with which access token, and how a slice's `count`
 * requests are made (each is sent once).
 * @typedef {{ at: WalletTarget, token: string, prepare: (count: number) => Promise<any[]> }} Turn
 */

/** Requests per turn and slice: a tenant keeps at most 1,000 open offers and pending requests. */
export const perSlice = 450;
/** The baselines answer three to four times as fast: four times the requests keep a slice as long. */
export const baselineShare = 4;

/**
 * Sends each of `requests` once at `at` over `settings.connections` connections, its processes and
 * PostgreSQL sampled, each answer's time kept.
 * @param {WalletTarget} at @param {string} token @param {any[]} requests
 */
export async function measureSentOnce(at, token, requests) {
  /** @type {number[]} */
  const latencies = [];
  const measured = await sampled(
    at.pids,
    () =>
      load(
        at.url,
        token,
        settings.duration,
        (counter) => requests[counter % requests.length],
        { counter: 0 },
        settings.connections,
        requests.length,
        latencies,
      ),
    at.postgresPid,
  );
  return { ...measured, latencies };
}

/**
 * One row of `name` for each of `turns` (the service, BENCH_COMPARE's checkout, the baselines),
 * measured in turns so that the machine's drift skews them alike (docs/performance.md).
 * @param {any} context @param {string} name @param {Turn[]} turns
 */
export async function rowsInTurns(context, name, turns) {
  log(`${name} [${turns.map(({ at }) => at.process).join(', ')}]: ${settings.slices} slices`);
  const combined = await measuredInTurns(
    turns,
    perSlice,
    (turn, count) => turn.prepare(count),
    (turn, requests) => measureSentOnce(turn.at, turn.token, requests),
    // A whole slice unmeasured first: a baseline's first thousand requests still run unoptimized code.
    perSlice,
  );
  for (const [index, { at }] of turns.entries()) {
    const { measured, usage, otherCpuPercent } = combined[index];
    row(context, name, at.process, measured, usage, otherCpuPercent);
  }
}

/**
 * A wallet row's bare baseline and, when given and with the service's database, its stack floor
 * (bench/stack-floor.mjs) started by `floor.start` on it, as turns: each slice's requests are
 * `make`'s, made again for each slice (a proof's `iat` ages) and sent round, `baselineShare` times the
 * service's count, without an access token; the service's PostgreSQL is sampled beside them.
 * @param {any} context
 * @param {{ processName: string, started: { url: string, pid: number | undefined } }} bare
 * @param {{ processName: string, start: (databaseUrl: string) => Promise<{ url: string, pid: number | undefined }> } | undefined} floor
 * @param {() => Promise<unknown[]>} make
 * @returns {Promise<Turn[]>}
 */
export async function baselineTurns(context, bare, floor, make) {
  const baselines = [bare];
  if (floor !== undefined && context.service.databaseUrl !== undefined) {
    baselines.push({
      processName: floor.processName,
      started: await floor.start(context.service.databaseUrl),
    });
  }
  return baselines.map(({ processName, started }) => ({
    at: {
      url: started.url,
      process: processName,
      pids: started.pid === undefined ? [] : [started.pid],
      postgresPid: context.service.postgresPid,
    },
    token: 'none',
    prepare: async (count) => {
      const requests = await make();
      return Array.from({ length: count * baselineShare }, (_, n) => requests[n % requests.length]);
    },
  }));
}
