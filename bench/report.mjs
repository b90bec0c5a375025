// @ts-check
/** What a run reports: the table, the ratios to the baselines and the verdicts on the targets. */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import {
  baselineProcess,
  compareProcess,
  didFloorProcess,
  freshTokenScenario,
  preparedBaselineProcess,
} from './load.mjs';
import {
  credentialBaselineProcess,
  credentialFloorProcess,
  cryptosuites,
  fairBaselineProcess,
  issueNoStatusScenario,
  issueScenario,
  statusScenario,
  verifyScenario,
} from './credentials.mjs';
import { settings, targets } from './settings.mjs';
import { webhookScenario } from './webhooks.mjs';
import {
  credentialEndpointScenario,
  issuanceScenario,
  sdJwtBaselineProcess,
  sdJwtStackFloorProcess,
} from './oid4vci.mjs';
import {
  presentationBaselineProcess,
  presentationFloorProcess,
  responseEndpointScenario,
} from './oid4vp.mjs';
import { mdocBaselineProcess, mdocCredentialScenario } from './mdoc.mjs';
import { inTurnsScenario } from './wallet-compare.mjs';
import { baselineShare, perSlice } from './wallet-rows.mjs';
import { nginxProcess } from './wallet-nginx.mjs';
import { credoProcess, peersScenario } from './peers.mjs';
import {
  freshBesideScenario,
  issuedBeforeScenario,
  tenantCounts,
  tenantsAtOnceScenario,
} from './wallet-scale.mjs';

/** The wallet endpoints judged against their bare baselines: throughput ratio and p99 bound each. */
const walletJudged = [
  {
    name: credentialEndpointScenario,
    baseline: sdJwtBaselineProcess,
    throughput: targets.credentialEndpointRatio,
    p99: targets.credentialEndpointP99Ratio,
  },
  {
    name: responseEndpointScenario,
    baseline: presentationBaselineProcess,
    throughput: targets.responseEndpointRatio,
    p99: targets.responseEndpointP99Ratio,
  },
  // The mdoc credential endpoint against its bare baseline: reported (INFO), no target set yet.
  {
    name: mdocCredentialScenario,
    baseline: mdocBaselineProcess,
    throughput: targets.credentialEndpointRatio,
    p99: targets.credentialEndpointP99Ratio,
    informational: true,
  },
];
/** Judged directly; through nginx in front of two instances the same ratios are INFO. */
const walletProcesses = ['service', nginxProcess];

/** The credential scenarios judged against the credential baseline. */
const credentialJudged = [...cryptosuites.map(issueScenario), verifyScenario];

export function machine() {
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

/** @returns {number | undefined} */
function ratio(numerator, denominator) {
  return numerator === undefined || !denominator
    ? undefined
    : Math.round((numerator / denominator) * 100) / 100;
}

/** A row against a stack floor or its baseline: throughput ratio, rates and CPU per request. */
function floorValue(measured, baseline) {
  return (
    `${ratio(measured.requestsPerSecond, baseline.requestsPerSecond)}x ` +
    `(${measured.requestsPerSecond} vs ${baseline.requestsPerSecond} req/s; CPU ` +
    `${measured.cpuMsPerRequest ?? 'n/a'} vs ${baseline.cpuMsPerRequest ?? 'n/a'} ms, PostgreSQL ` +
    `${measured.postgresCpuMsPerRequest ?? 'n/a'} vs ${baseline.postgresCpuMsPerRequest ?? 'n/a'} ms)`
  );
}

/** The row of one scenario at one size for one process. */
function findRow(rows, name, size, processName) {
  return rows.find((row) => row.name === name && row.size === size && row.process === processName);
}

export function evaluate(rows) {
  const find = (name, size, processName) => findRow(rows, name, size, processName);
  const verdicts = [];
  const sizes = [...new Set(rows.map((row) => row.size))];
  // Judged twice: with the caller's token reused (answered from the verified-token cache) and with a new
  // token each request (verified like the baseline verifies every one).
  // The targets are judged against the plain baseline; against the baseline that also prepares
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
          pass: judged
            ? throughput !== undefined && throughput >= targets.didThroughputRatio
            : null,
        });
        verdicts.push({
          target: `GET /did p99 <= ${targets.didP99Ratio}x ${baselineName} (${size} tenants, ${tokens})`,
          value: `${p99}x (${service.latencyP99Ms} vs ${baseline.latencyP99Ms} ms)`,
          pass: judged ? p99 !== undefined && p99 <= targets.didP99Ratio : null,
        });
      }
    }
  }
  // GET /did's stack floor (bench/did-stack-floor.mjs): the prepared baseline's work in NestJS with
  // passport-jwt, each token verified; what the service adds on top.
  for (const size of sizes) {
    for (const [processName, against, againstName] of [
      [didFloorProcess, preparedBaselineProcess, 'GET /did'],
      [didFloorProcess, baselineProcess, 'GET /did'],
      ['service', didFloorProcess, freshTokenScenario],
    ]) {
      const measured = find(freshTokenScenario, size, processName);
      const baseline = find(againstName, size, against);
      if (measured === undefined || baseline === undefined) continue;
      verdicts.push({
        target: `${freshTokenScenario} [${processName}] against the ${against} (${size} tenants)`,
        value: floorValue(measured, baseline),
        pass: null,
      });
    }
  }
  // Judged against the fair baseline (token check and a record in PostgreSQL); the bare one is INFO.
  for (const baselineName of [fairBaselineProcess, credentialBaselineProcess]) {
    const judged = baselineName === fairBaselineProcess;
    for (const name of credentialJudged) {
      const service = find(name, 1, 'service');
      const baseline = find(name, 1, baselineName);
      if (service === undefined || baseline === undefined) continue;
      const throughput = ratio(service.requestsPerSecond, baseline.requestsPerSecond);
      const p99 = ratio(service.latencyP99Ms, baseline.latencyP99Ms);
      verdicts.push({
        target: `${name} throughput >= ${targets.credentialThroughputRatio}x ${baselineName}`,
        value: `${throughput}x`,
        pass: judged
          ? throughput !== undefined && throughput >= targets.credentialThroughputRatio
          : null,
      });
      verdicts.push({
        target: `${name} p99 <= ${targets.credentialP99Ratio}x ${baselineName}`,
        value: `${p99}x (${service.latencyP99Ms} vs ${baseline.latencyP99Ms} ms)`,
        pass: judged ? p99 !== undefined && p99 <= targets.credentialP99Ratio : null,
      });
    }
  }
  // What a revocation entry costs an issue: measured in turns with issues without one.
  for (const processName of ['service', compareProcess]) {
    for (const size of sizes) {
      const withEntry = find(issueScenario(cryptosuites[0]), size, processName);
      const without = find(issueNoStatusScenario(cryptosuites[0]), size, processName);
      if (withEntry === undefined || without === undefined) continue;
      const throughput = ratio(withEntry.requestsPerSecond, without.requestsPerSecond);
      verdicts.push({
        target: `${processName}: issue with a revocation entry >= ${targets.statusEntryRatio}x without (${size} tenants)`,
        value: `${throughput}x (${withEntry.requestsPerSecond} vs ${without.requestsPerSecond} req/s)`,
        pass:
          processName === 'service'
            ? throughput !== undefined && throughput >= targets.statusEntryRatio
            : null,
      });
    }
  }
  for (const size of sizes) {
    const first = find('GET /tenants (page 0)', size, 'service');
    const deep = find(`GET /tenants (page ${settings.deepPage})`, size, 'service');
    if (first === undefined || deep === undefined) continue;
    const throughput = ratio(deep.requestsPerSecond, first.requestsPerSecond);
    verdicts.push({
      target: `GET /tenants page ${settings.deepPage} >= ${targets.deepPageRatio}x page 0 (${size} tenants)`,
      value: `${throughput}x (${deep.requestsPerSecond} vs ${first.requestsPerSecond} req/s)`,
      pass: throughput !== undefined && throughput >= targets.deepPageRatio,
    });
  }
  for (const judgedRow of walletJudged) {
    const baseline = find(judgedRow.name, 1, judgedRow.baseline);
    for (const processName of walletProcesses) {
      const service = find(judgedRow.name, 1, processName);
      if (service === undefined || baseline === undefined) continue;
      const judged = processName === 'service' && !judgedRow.informational;
      const throughput = ratio(service.requestsPerSecond, baseline.requestsPerSecond);
      const p99 = ratio(service.latencyP99Ms, baseline.latencyP99Ms);
      verdicts.push({
        target: `${judgedRow.name} [${processName}] >= ${judgedRow.throughput}x ${judgedRow.baseline}`,
        value: `${throughput}x (${service.requestsPerSecond} vs ${baseline.requestsPerSecond} req/s)`,
        pass: judged ? throughput !== undefined && throughput >= judgedRow.throughput : null,
      });
      verdicts.push({
        target: `${judgedRow.name} [${processName}] p99 <= ${judgedRow.p99}x ${judgedRow.baseline}`,
        value: `${p99}x (${service.latencyP99Ms} vs ${baseline.latencyP99Ms} ms)`,
        pass: judged ? p99 !== undefined && p99 <= judgedRow.p99 : null,
      });
    }
  }
  // The stack floors: what NestJS and Express (and the wallet rows' durable write) cost the baselines'
  // work, and what the service adds on top (bench/stack-floor.mjs).
  for (const [scenario, bare, floor] of [
    ...credentialJudged.map((name) => [name, fairBaselineProcess, credentialFloorProcess]),
    [credentialEndpointScenario, sdJwtBaselineProcess, sdJwtStackFloorProcess],
    [responseEndpointScenario, presentationBaselineProcess, presentationFloorProcess],
  ]) {
    for (const [processName, against] of [
      [floor, bare],
      ['service', floor],
    ]) {
      const measured = find(scenario, 1, processName);
      const baseline = find(scenario, 1, against);
      if (measured === undefined || baseline === undefined) continue;
      verdicts.push({
        target: `${scenario} [${processName}] against the ${against}`,
        value: floorValue(measured, baseline),
        pass: null,
      });
    }
  }
  for (const processName of walletProcesses) {
    const issuances = find(issuanceScenario, 1, processName);
    if (issuances === undefined) continue;
    verdicts.push({
      target: `complete issuances [${processName}] >= ${targets.issuancesPerSecond}/s`,
      value: `${issuances.requestsPerSecond}/s (p99 ${issuances.latencyP99Ms} ms)`,
      pass:
        processName === 'service'
          ? issuances.requestsPerSecond >= targets.issuancesPerSecond
          : null,
    });
    verdicts.push({
      target: `CPU per complete issuance [${processName}]`,
      value: `service ${issuances.cpuMsPerRequest ?? 'n/a'} ms, PostgreSQL ${issuances.postgresCpuMsPerRequest ?? 'n/a'} ms`,
      pass: null,
    });
  }
  // The service against Credo's issuer in memory, in turns: the ratio holds where the machine drifts.
  const beside = find(peersScenario, 1, 'service');
  const credo = find(peersScenario, 1, credoProcess);
  if (beside !== undefined && credo !== undefined) {
    const serviceCpu =
      beside.cpuMsPerRequest === undefined
        ? undefined
        : Math.round((beside.cpuMsPerRequest + (beside.postgresCpuMsPerRequest ?? 0)) * 100) / 100;
    verdicts.push({
      target: `complete issuances, in turns: service against the ${credoProcess}`,
      value:
        `${ratio(beside.requestsPerSecond, credo.requestsPerSecond)}x (${beside.requestsPerSecond} vs ` +
        `${credo.requestsPerSecond}/s, p99 ${beside.latencyP99Ms} vs ${credo.latencyP99Ms} ms; CPU per ` +
        `issuance ${serviceCpu ?? 'n/a'} ms (service ${beside.cpuMsPerRequest ?? 'n/a'} + PostgreSQL ` +
        `${beside.postgresCpuMsPerRequest ?? 'n/a'}) vs ${credo.cpuMsPerRequest ?? 'n/a'} ms)`,
      pass: null,
    });
  }
  // The credential endpoint as tenants and issued credentials grow, against its one-tenant row.
  const oneTenant = find(tenantsAtOnceScenario, 1, 'service');
  for (const [label, grown] of [
    ...tenantCounts
      .filter((count) => count > 1)
      .map((count) => [`${count} tenants at once`, find(tenantsAtOnceScenario, count, 'service')]),
    [
      `one tenant, ${settings.scaleCredentials.toLocaleString('en')} issued before`,
      find(issuedBeforeScenario(), 1, 'service'),
    ],
  ]) {
    if (oneTenant === undefined || grown === undefined) continue;
    const throughput = ratio(grown.requestsPerSecond, oneTenant.requestsPerSecond);
    verdicts.push({
      target: `${credentialEndpointScenario}, ${label} >= ${targets.walletScalingRatio}x one tenant`,
      value: `${throughput}x (${grown.requestsPerSecond} vs ${oneTenant.requestsPerSecond} req/s)`,
      pass: throughput !== undefined && throughput >= targets.walletScalingRatio,
    });
  }
  const seeded = find(issuedBeforeScenario(), 1, 'service');
  const none = find(freshBesideScenario(), 1, 'service');
  if (seeded !== undefined && none !== undefined) {
    verdicts.push({
      target: `${credentialEndpointScenario}, the seeded tenant against one without, in turns after the seeding (its own growth)`,
      value: `${ratio(seeded.requestsPerSecond, none.requestsPerSecond)}x (${seeded.requestsPerSecond} vs ${none.requestsPerSecond} req/s)`,
      pass: null,
    });
    if (oneTenant !== undefined) {
      verdicts.push({
        target: `${credentialEndpointScenario}, the tenant without after the seeding against one tenant before (drift and the tables' growth)`,
        value: `${ratio(none.requestsPerSecond, oneTenant.requestsPerSecond)}x (${none.requestsPerSecond} vs ${oneTenant.requestsPerSecond} req/s)`,
        pass: null,
      });
    }
  }
  const burst = rows.find((row) => row.name === webhookScenario);
  if (burst !== undefined) {
    verdicts.push({
      target: `${webhookScenario}: drained at >= ${targets.webhookEventsPerSecond} events/s`,
      value: `${burst.requestsPerSecond} events/s (p99 ${burst.latencyP99Ms} ms)`,
      pass: burst.requestsPerSecond >= targets.webhookEventsPerSecond,
    });
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

export function table(headers, rows) {
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

export function report(result) {
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
            service.postgresCpuMsPerRequest === undefined || !other.postgresCpuMsPerRequest
              ? 'n/a'
              : `${ratio(service.postgresCpuMsPerRequest, other.postgresCpuMsPerRequest)}x`,
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
    ...[
      ...didScenarios,
      'GET /tenants (page 0)',
      `GET /tenants (page ${settings.deepPage})`,
      'POST /tenants/create',
      ...cryptosuites.map(issueScenario),
      ...cryptosuites.map(issueNoStatusScenario),
      verifyScenario,
      statusScenario,
      issuanceScenario,
      credentialEndpointScenario,
      responseEndpointScenario,
      inTurnsScenario(issuanceScenario),
      inTurnsScenario(credentialEndpointScenario),
      inTurnsScenario(responseEndpointScenario),
    ].flatMap((name) =>
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
        ? `; the GET /did, W3C and wallet rows in turns with their baselines, ${settings.slices} slices each after a warm-up (a wallet row's slice: ${perSlice} requests each sent once, its baselines' ${baselineShare} times as many)`
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
        'PG CPU ms/req',
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
          row.postgresCpuMsPerRequest ?? 'n/a',
          row.peakRssMb ?? 'n/a',
          row.seqScans === undefined
            ? 'n/a'
            : `${row.seqScans.tenant ?? 0}/${row.seqScans.tenant_did ?? 0}`,
          row.otherCpuPercent ?? 'n/a',
        ]),
        ...didRatios,
        ...[fairBaselineProcess, credentialBaselineProcess].flatMap((baselineName) =>
          credentialJudged.flatMap((name) =>
            ratioRow(
              name,
              1,
              `service/${baselineName}`,
              find(name, 1, 'service'),
              find(name, 1, baselineName),
            ),
          ),
        ),
        ...walletJudged.flatMap((judgedRow) =>
          walletProcesses.flatMap((processName) =>
            ratioRow(
              judgedRow.name,
              1,
              `${processName}/${judgedRow.baseline}`,
              find(judgedRow.name, 1, processName),
              find(judgedRow.name, 1, judgedRow.baseline),
            ),
          ),
        ),
        ...tenantCounts
          .filter((count) => count > 1)
          .flatMap((count) =>
            ratioRow(
              tenantsAtOnceScenario,
              count,
              `${count} tenants/1 tenant`,
              find(tenantsAtOnceScenario, count, 'service'),
              find(tenantsAtOnceScenario, 1, 'service'),
            ),
          ),
        ...ratioRow(
          issuedBeforeScenario(),
          1,
          'service/before seeding',
          find(issuedBeforeScenario(), 1, 'service'),
          find(tenantsAtOnceScenario, 1, 'service'),
        ),
      ],
    ),
    '',
    ...(settings.slices > 1
      ? [
          'Measured in turns: throughput and CPU time over all slices; p50 and p99 the highest of the slices',
          "(a wallet endpoint row's over all its requests).",
        ]
      : []),
    'CPU ms/req: CPU time of that process per request (two instances: both). PG CPU ms/req: CPU time of',
    'the embedded PostgreSQL (postmaster, backends, helpers) per request, where the run knows its process.',
    'Tenants: of the "tenants at once" rows, how many tenants issued at once. seq scans: sequential scans of tenant/tenant_did',
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
    'Targets (INFO: the same ratio against the prepared or the bare credential baseline, of BENCH_COMPARE, or',
    'through nginx in front of two instances, or against a peer (Credo), not judged):',
    ...verdicts.map(
      (verdict) =>
        `  ${verdict.pass === null ? 'INFO' : verdict.pass ? 'PASS' : 'MISS'}  ${verdict.target}: ${verdict.value}`,
    ),
    ...(verdicts.some((verdict) => verdict.pass === false)
      ? ['', 'Where a MISS comes from, profiled: docs/performance.md, "Where the time goes".']
      : []),
    '',
  ];
  process.stdout.write(lines.join('\n'));
}
