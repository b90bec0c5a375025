// @ts-check
/**
 * The service beside a peer: complete pre-authorized OpenID4VCI issuances (offer, token, nonce,
 * credential) of the service and of Credo 0.6.3's issuer with keys and records in memory
 * (bench/peers/credo-issuer.ts), driven by the same wallet loop and measured in turns, so that the
 * machine's drift skews both alike.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import {
  call,
  checkSdJwtVc,
  claims,
  discoverEndpoints,
  ensureConfiguration,
  issueOnce,
  loops,
  measureLoops,
  serviceOffer,
} from './oid4vci.mjs';
import { startScript } from './processes.mjs';
import { row, serviceTarget } from './wallet-rows.mjs';
import { log, root, settings } from './settings.mjs';

export const peersScenario =
  'OpenID4VCI issuance (offer, token, nonce, credential), in turns with Credo 0.6.3';
export const credoProcess = 'Credo 0.6.3 issuer (in memory)';

/** Credo's issuer compiled (tsconfig.peers.json: it imports the test suite's Credo helpers) and started. */
async function startCredoIssuer() {
  log('compiling and starting the Credo 0.6.3 issuer (bench/peers/credo-issuer.ts)');
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.peers.json'],
    { cwd: root, stdio: 'inherit' },
  );
  return startScript('dist/peers/bench/peers/credo-issuer.js', {});
}

/**
 * One row from a side's slices: throughput and CPU time over all of them; p50, p99, peak RSS and other
 * processes' CPU the highest of the slices.
 * @param {any} context @param {string} processName @param {any[]} slices results of measureLoops
 */
function sliceRow(context, processName, slices) {
  const sum = (/** @type {(part: any) => number | undefined} */ pick) =>
    slices.some((part) => pick(part) === undefined)
      ? undefined
      : slices.reduce((total, part) => total + (pick(part) ?? 0), 0);
  const highest = (/** @type {(part: any) => number | undefined} */ pick) =>
    slices.some((part) => pick(part) === undefined)
      ? undefined
      : Math.max(...slices.map((part) => pick(part) ?? 0));
  const measured = {
    requests: sum((part) => part.measured.requests) ?? 0,
    seconds: sum((part) => part.measured.seconds) ?? 0,
    latencyP50Ms: highest((part) => part.measured.latencyP50Ms),
    latencyP99Ms: highest((part) => part.measured.latencyP99Ms),
    errors: sum((part) => part.measured.errors),
  };
  const usage = slices.every((part) => part.usage !== undefined)
    ? {
        peakRssMb: highest((part) => part.usage.peakRssMb),
        cpuSeconds: sum((part) => part.usage.cpuSeconds),
        postgresCpuSeconds: sum((part) => part.usage.postgresCpuSeconds),
      }
    : undefined;
  row(
    context,
    peersScenario,
    processName,
    measured,
    usage,
    highest((part) => part.otherCpuPercent),
  );
}

/**
 * The service's complete issuances to `tenantId` and Credo's, in turns: each side's endpoints found
 * once from its first offer's issuer metadata, one credential checked, a warm-up, then
 * settings.slices slices of each, alternating.
 * @param {any} context @param {string} tenantId
 */
export async function measurePeers(context, tenantId) {
  const service = serviceTarget(context);
  const apiToken = await context.token();
  await ensureConfiguration(service.url, apiToken, tenantId);
  const credo = await startCredoIssuer();
  const sides = [
    { at: service, offer: () => serviceOffer(service.url, apiToken, tenantId) },
    {
      at: {
        url: credo.url,
        process: credoProcess,
        pids: credo.pid === undefined ? [] : [credo.pid],
      },
      offer: async () => (await call(credo.url, '/offers', { json: { claims } })).credentialOffer,
    },
  ];
  const runs = [];
  for (const { at, offer } of sides) {
    const endpoints = await discoverEndpoints((await offer()).credential_issuer);
    const issue = () => issueOnce(offer, endpoints);
    checkSdJwtVc(
      context,
      `${at.process}: the in-turns issuances' SD-JWT VCs are ES256 with x5c`,
      at.process,
      await issue(),
    );
    log(`OpenID4VCI [${at.process}]: warming up complete issuances`);
    if (settings.warmup > 0) await loops(settings.warmup, settings.connections, issue);
    runs.push({ at, issue, slices: /** @type {any[]} */ ([]) });
  }
  const seconds = settings.duration / settings.slices;
  for (let slice = 1; slice <= settings.slices; slice++) {
    for (const run of runs) {
      const part = await measureLoops(run.at, run.issue, seconds);
      run.slices.push(part);
      log(
        `OpenID4VCI in turns, slice ${slice}/${settings.slices} [${run.at.process}]: ` +
          `${Math.round((part.measured.requests / part.measured.seconds) * 10) / 10} issuances/s`,
      );
    }
  }
  for (const run of runs) sliceRow(context, run.at.process, run.slices);
}
