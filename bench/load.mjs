// @ts-check
/** Load: autocannon runs, measured in turns across processes so that the machine's drift skews them
 * alike. */
import autocannon from 'autocannon';
import { tableScans } from './database.mjs';
import { InterferenceMeter, PostgresSampler, ProcessSampler } from './processes.mjs';
import { apiPath, log, settings } from './settings.mjs';

/**
 * One autocannon run; `requestFor(counter)` gives each request's method, path, headers and JSON body,
 * and may give its own access token instead of `token`. With `amount`, that many requests instead of
 * `seconds` (for requests that can each be sent once); with `latencies`, each answer's time in ms is
 * pushed to it, so that slices can be judged over all their requests.
 */
export async function load(
  baseUrl,
  token,
  seconds,
  requestFor,
  state = { counter: 0 },
  connections = settings.connections,
  /** @type {number | undefined} */ amount = undefined,
  /** @type {number[] | undefined} */ latencies = undefined,
) {
  const run = autocannon({
    url: baseUrl,
    connections,
    // With `amount` autocannon notices the last answer at its next sample tick (every second by
    // default), which would round the duration up to whole seconds: sample every 10 ms instead.
    ...(amount === undefined ? { duration: seconds } : { amount, sampleInt: 10 }),
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
              ...(next.body === undefined ? {} : { 'content-type': 'application/json' }),
              ...(next.form === undefined
                ? {}
                : { 'content-type': 'application/x-www-form-urlencoded' }),
              authorization: `Bearer ${next.token ?? token}`,
            },
            ...(next.body === undefined ? {} : { body: JSON.stringify(next.body) }),
            ...(next.form === undefined ? {} : { body: new URLSearchParams(next.form).toString() }),
          };
        },
      },
    ],
  });
  // Only 2xx answers, as autocannon's own latency figures count them.
  if (latencies !== undefined)
    run.on('response', (_client, status, _bytes, responseTime) => {
      if (status >= 200 && status < 300) latencies.push(responseTime);
    });
  const result = await run;
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
export async function interleaved(context, specs, slices) {
  const seconds = settings.duration / slices;
  const runs = [];
  for (const spec of specs) {
    const token = await (spec.token ?? context.token)();
    /** @type {{ spec: any, token: string, state: { counter: number }, slices: any[] }} */
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
    const postgresCpuSeconds = measured.some((part) => part.postgresCpuSeconds === undefined)
      ? undefined
      : sum('postgresCpuSeconds');
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
      postgresCpuMsPerRequest:
        postgresCpuSeconds === undefined || requests === 0
          ? undefined
          : Math.round(((postgresCpuSeconds * 1000) / requests) * 1000) / 1000,
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
        `CPU ${row.cpuMsPerRequest ?? 'n/a'} ms/request (PostgreSQL ${row.postgresCpuMsPerRequest ?? 'n/a'}), peak RSS ${row.peakRssMb ?? 'n/a'} MB` +
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
  // The baselines share the service's database; BENCH_COMPARE's service has its own.
  const postgresPid =
    spec.process === compareProcess ? context.compare?.postgresPid : context.service.postgresPid;
  const postgres = postgresPid === undefined ? undefined : new PostgresSampler(postgresPid);
  const started = performance.now();
  sampler?.start();
  postgres?.start();
  interference?.start();
  const measured = await load(spec.url, run.token, seconds, spec.requestFor, run.state);
  const otherCpuPercent = interference?.stop();
  const postgresCpuSeconds = postgres?.stop();
  const usage = sampler?.stop();
  let seqScans;
  let scansAfter;
  if (before !== undefined) {
    scansAfter = await tableScans(context.database);
    seqScans = Object.fromEntries(
      Object.keys(scansAfter).map((table) => [scansAfter[table].seq - (before[table]?.seq ?? 0)]),
    );
  }
  return {
    ...measured,
    seconds: measured.seconds ?? (performance.now() - started) / 1000,
    peakRssMb: usage?.peakRssMb,
    cpuSeconds: usage?.cpuSeconds,
    postgresCpuSeconds,
    seqScans,
    scansAfter,
    otherCpuPercent,
  };
}

export async function scenario(context, spec) {
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

export const freshTokenScenario = 'GET /did, new token each request';
export const baselineProcess = 'baseline';
export const preparedBaselineProcess = 'baseline, prepared';
/** The prepared baseline's work in the project's stack (bench/did-stack-floor.mjs). */
export const didFloorProcess = 'GET /did stack floor';
/** BENCH_COMPARE's service: another checkout, measured in turns with this one at the small size. */
export const compareProcess = 'compare';

/** GET /did rows, then the `pages` of GET /tenants, at one size. */
export async function measureSize(context, size, tenantIds, pages = [0]) {
  const did = didRequests(tenantIds);
  const service = { size, process: 'service', url: context.service.url, pid: context.service.pid };
  /** A service's two GET /did rows: its token reused, and a new token of its issuer each request. */
  const didSpecs = (spec, issuer, tokens) => [
    { ...spec, name: 'GET /did', requestFor: did, token: issuer.token },
    {
      ...spec,
      name: freshTokenScenario,
      requestFor: didRequests(tenantIds, tokens),
      token: issuer.token,
    },
  ];
  const freshTokens = (issuer) => {
    log(`getting ${settings.freshTokens} access tokens`);
    return issuer.freshTokens(settings.freshTokens);
  };
  const tokens = await freshTokens(context);
  // The other checkout's database holds the small size's tenants, and as many seeded ones as this
  // one's at the large size, but not the same tenants created through the API: its GET /did rows are
  // measured at the small size only.
  const compare = size === settings.tenants ? context.compare : undefined;
  const pagesCompare =
    compare ?? (context.compare?.seededTo === size ? context.compare : undefined);
  await interleaved(
    context,
    [
      ...didSpecs(service, context, tokens),
      // The stack floor remembers no token: it gets this service's new tokens, one each request.
      ...context.baselines.map((baseline) => ({
        name: baseline.process === didFloorProcess ? freshTokenScenario : 'GET /did',
        size,
        process: baseline.process,
        url: baseline.url,
        pid: baseline.pid,
        requestFor: baseline.process === didFloorProcess ? didRequests(tenantIds, tokens) : did,
      })),
      ...(compare === undefined
        ? []
        : didSpecs(
            { size, process: compareProcess, url: compare.url, pid: compare.pid },
            compare,
            await freshTokens(compare),
          )),
    ],
    settings.slices,
  );
  await measurePages(context, size, pages, pagesCompare);
}

/**
 * GET /tenants pages of this service, and of BENCH_COMPARE's when given (its database holds the same
 * tenants), in turns: several pages are measured in slices so that their ratio is not the machine's drift.
 */
export async function measurePages(context, size, pages, compare) {
  const specs = pages.flatMap((page) => {
    const name = `GET /tenants (page ${page})`;
    const requestFor = () => ({
      path: `${apiPath}/tenants?page=${page}&size=${settings.pageSize}`,
    });
    const service = {
      size,
      process: 'service',
      url: context.service.url,
      pid: context.service.pid,
    };
    return [
      { ...service, name, requestFor },
      ...(compare === undefined
        ? []
        : [
            {
              size,
              process: compareProcess,
              url: compare.url,
              pid: compare.pid,
              token: compare.token,
              name,
              requestFor,
            },
          ]),
    ];
  });
  await interleaved(context, specs, specs.length > 1 ? settings.slices : 1);
}
