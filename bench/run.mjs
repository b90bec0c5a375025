// @ts-check
// npm run bench: drives the service and a bare node:http baseline with autocannon at fixed concurrency
// and duration, at 100 and at 100,000 tenants, and reports requests/s, p50/p99 latency and peak RSS per
// process (docs/performance.md); credential issue, verify and status update beside a baseline that calls
// the same credential libraries without framework or database (bench/credential-baseline.mjs), and the
// same work in a bare NestJS app, the stack's floor (bench/credential-stack-floor.mjs); a burst
// of 10,000 webhook events drained to a receiver on this machine; the OpenID4VC wallet rows (with x5c,
// HAIP 1.0) directly, as tenants and issued credentials grow, and through nginx in front of two instances. The baseline runs twice: with a plain parameterized query, which the
// targets are judged against, and with the service's prepared statement, for information. ESM checked
// by TypeScript (// @ts-check, tsconfig.bench.json) on the compiled service (`npm run bench` builds first).
//
// Knobs (environment):
//   BENCH_DURATION=10        seconds measured per scenario
//   BENCH_WARMUP=2           seconds of unmeasured load before each scenario
//   BENCH_SLICES=4           the GET /did scenarios of the service and the baselines (and the peers
//                            group's issuances of the service and Credo) run in turns, in this
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
//   BENCH_PERSON_PASSWORD    the demo person erika's password, for the authorization-code row (default erika)
//   BENCH_CPU_PROF=dir       local mode: run the service with --cpu-prof, profiles written to dir
//   BENCH_SERVICE_NODE_OPTIONS  local mode: NODE_OPTIONS of the service, e.g. --max-old-space-size=128
//   BENCH_COMPARE=dir        local mode: also start the built checkout in dir (its own database and
//                            issuer) and measure its GET /did, tenants and credential rows in turns with
//                            these, its wallet rows right after these and then the complete issuances,
//                            credential and response endpoints of both in turns (bench/wallet-compare.mjs), at the
//                            small size (rows "compare", ratios service/compare): before and after a change
//   BENCH_ONLY=wallet        only these scenario groups (comma-separated; unset: all): did (GET /did and
//                            its baselines), tenants (GET /tenants page 0, POST /tenants/create),
//                            credentials, webhooks, wallet-endpoints (OpenID4VCI issuances, pre-authorized
//                            and by authorization code with a login, the
//                            credential and the OpenID4VP response endpoint in turns with their baselines,
//                            for SD-JWT VC and for an ISO mdoc mDL),
//                            wallet-scale (the credential endpoint with 1, 10, 100 tenants at once, and
//                            after BENCH_SCALE_CREDENTIALS issued), wallet-nginx (the wallet rows through
//                            nginx in front of two instances), peers (complete OpenID4VCI issuances in
//                            turns with Credo 0.6.3's issuer in memory, bench/peers.mjs, compiled with
//                            tsconfig.peers.json), scale (the rows at BENCH_SCALE_TENANTS);
//                            "wallet" is the three wallet groups
//   BENCH_SCALE_CREDENTIALS=100000  issued credentials seeded in SQL for the wallet-scale row; 0 skips it
//   BENCH_WALLET_FORMATS=sd-jwt,mdoc  the credential formats of the wallet-endpoints rows (comma-separated):
//                            sd-jwt (the SD-JWT VC rows), mdoc (the mso_mdoc credential and response
//                            endpoint rows, bench/mdoc.mjs); BENCH_COMPARE measures the SD-JWT rows only
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { measureCredentials } from './credentials.mjs';
import { seedTenants } from './database.mjs';
import { measureWebhooks } from './webhooks.mjs';
import { measureOid4vci } from './oid4vci.mjs';
import { measureAuthorizationCode } from './oid4vci-login.mjs';
import { measureOid4vp } from './oid4vp.mjs';
import { measureMdocIssuance } from './mdoc.mjs';
import { measureMdocResponse } from './mdoc-presentation.mjs';
import { measureWalletScaling } from './wallet-scale.mjs';
import { measureWalletThroughNginx } from './wallet-nginx.mjs';
import { measurePeers } from './peers.mjs';
import { accessTokens, createTenantsThroughApi, discover, tokenSource } from './http.mjs';
import { measureWalletInTurns } from './wallet-compare.mjs';
import { compareTarget, serviceTarget } from './wallet-rows.mjs';
import {
  baselineProcess,
  compareProcess,
  didFloorProcess,
  interleaved,
  measurePages,
  measureSize,
  preparedBaselineProcess,
  scenario,
} from './load.mjs';
import {
  cleanups,
  commitOf,
  machineBusyPercent,
  runToTheEnd,
  startBaseline,
  temporaryDataDir,
  startCredentialBaseline,
  startTokenCheckedFloor,
  startLocalService,
} from './processes.mjs';
import { evaluate, machine, report } from './report.mjs';
import { apiPath, env, log, root, runPrefix, selected, settings, target } from './settings.mjs';

async function main() {
  if (env.BENCH_COMPARE && target !== undefined) {
    throw new Error('BENCH_COMPARE works in local mode only (without BENCH_TARGET)');
  }
  const started = performance.now();
  log(`scenario groups: ${[...settings.only].join(', ')}`);
  const busy = await machineBusyPercent();
  if (busy !== undefined && busy > 15)
    log(`the machine is already ${busy}% busy: results will be low`);
  const rows = [];
  let service;
  let databaseUrl = env.BENCH_DATABASE_URL || undefined;
  if (target === undefined) {
    const dataDir = temporaryDataDir();
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
    // The plain baseline, and the same with the service's prepared statement, so that
    // a saving of database work is not mistaken for one of framework overhead.
    for (const [processName, prepared] of /** @type {[string, boolean][]} */ (
      selected('did') || selected('scale')
        ? [
            [baselineProcess, false],
            [preparedBaselineProcess, true],
          ]
        : []
    )) {
      const started = await startBaseline({
        databaseUrl,
        jwksUrl: openIdConfiguration.jwks_uri,
        issuer: openIdConfiguration.issuer,
        prepared,
      });
      baselines.push({ ...started, process: processName });
    }
    if (selected('did') || selected('scale')) {
      const floor = await startTokenCheckedFloor('bench/did-stack-floor.mjs', {
        databaseUrl,
        jwksUrl: openIdConfiguration.jwks_uri,
        issuer: openIdConfiguration.issuer,
      });
      baselines.push({ ...floor, process: didFloorProcess });
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
    const compareDir = temporaryDataDir('agent-bench-compare-');
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
      /** How many tenants its database holds once seeded to the large size. */
      seededTo: /** @type {number | undefined} */ (undefined),
    };
  }

  const context = {
    service,
    compare,
    baselines,
    database,
    rows,
    /** Checks beside the targets: that the rows measured what their labels say, skipped rows. */
    checks: [],
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
  if (selected('did')) {
    await measureSize(context, settings.tenants, smallIds, selected('tenants') ? [0] : []);
  } else if (selected('tenants')) {
    await measurePages(context, settings.tenants, [0], compare);
  }
  // Creation comes last at this size: it adds tenants. One counter per service: every request creates
  // a new tenant in its own database.
  const creating = (processName, url, pid, token) => {
    let created = 0;
    return {
      name: 'POST /tenants/create',
      size: settings.tenants,
      process: processName,
      url,
      pid,
      token,
      requestFor: () => {
        const id = `${runPrefix}-c${(created++).toString(36)}`;
        return { method: 'POST', path: `${apiPath}/tenants/create?id=${id}&label=Bench%20${id}` };
      },
    };
  };
  if (selected('tenants'))
    await interleaved(
      context,
      [
        creating('service', service.url, service.pid),
        ...(compare === undefined
          ? []
          : [creating(compareProcess, compare.url, compare.pid, compare.token)]),
      ],
      compare === undefined ? 1 : settings.slices,
    );

  if (selected('credentials')) {
    log('starting the credential baselines');
    const fair =
      databaseUrl === undefined
        ? undefined
        : {
            databaseUrl,
            jwksUrl: openIdConfiguration.jwks_uri,
            issuer: openIdConfiguration.issuer,
          };
    await measureCredentials(context, smallIds, {
      bare: await startCredentialBaseline(),
      fair: fair && (await startCredentialBaseline(fair)),
      floor: fair && (await startTokenCheckedFloor('bench/credential-stack-floor.mjs', fair)),
    });
  }
  if (selected('webhooks')) await measureWebhooks(context, smallIds[1]);
  if (selected('wallet-endpoints')) {
    const sdJwt = settings.walletFormats.has('sd-jwt');
    const mdoc = settings.walletFormats.has('mdoc');
    if (sdJwt) {
      await measureOid4vci(context, smallIds[2], serviceTarget(context));
      await measureAuthorizationCode(context, smallIds[2], serviceTarget(context));
      await measureOid4vp(context, smallIds[2], smallIds[3], serviceTarget(context));
    }
    if (mdoc) {
      await measureMdocIssuance(context, smallIds[2], serviceTarget(context));
      await measureMdocResponse(context, smallIds[2], smallIds[3], serviceTarget(context));
    }
    // The checkout compared with: the same rows right after, on its own database (not in turns),
    // then complete issuances and the credential and response endpoints of both in turns.
    if (compare !== undefined && sdJwt) {
      await measureOid4vci(context, smallIds[2], compareTarget(context), false);
      await measureOid4vp(context, smallIds[2], smallIds[3], compareTarget(context), false);
      await measureWalletInTurns(context, smallIds[2], smallIds[3]);
    }
  }
  if (selected('wallet-scale')) await measureWalletScaling(context);
  if (selected('wallet-nginx')) {
    if (target === undefined) await measureWalletThroughNginx(context);
    else log('NOTE: the wallet rows through nginx start their own instances: local mode only');
  }
  if (selected('peers')) {
    // Credo runs beside the load generator: against a remote service its ratio would mean nothing.
    if (target === undefined) await measurePeers(context, smallIds[2]);
    else log('NOTE: the peer rows compare processes on this machine: local mode only');
  }

  // The large size: seeded in SQL.
  if (selected('scale') && database !== undefined && settings.scaleTenants > settings.tenants) {
    log(`seeding the database up to ${settings.scaleTenants} tenants`);
    await seedTenants(database, settings.scaleTenants);
    const size = (await database.query('SELECT count(*)::int AS count FROM tenant')).rows[0].count;
    // 1,000 tenants spread over the whole table, so that lookups are not all in a few pages.
    const { rows: spread } = await database.query(
      `SELECT id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM tenant) AS numbered
       WHERE n % greatest(1, (SELECT count(*) FROM tenant) / 1000) = 0 LIMIT 1000`,
    );
    if (compare !== undefined) {
      const compareDatabase = new pg.Client({ connectionString: compare.databaseUrl });
      await compareDatabase.connect();
      cleanups.push(() => compareDatabase.end());
      await seedTenants(compareDatabase, settings.scaleTenants);
      compare.seededTo = size;
    }
    await measureSize(
      context,
      size,
      spread.map((row) => row.id),
      [0, settings.deepPage],
    );
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
    verdicts: [...evaluate(rows), ...context.checks],
  };
  report(result);
  const resultsDir = join(root, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `${result.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`results written to ${file} (${result.seconds} s)`);
}

await runToTheEnd(main);
