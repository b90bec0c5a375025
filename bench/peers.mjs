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
import { startScript, stopProcess } from './processes.mjs';
import { combine, row, serviceTarget } from './wallet-rows.mjs';
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
 * The service's complete issuances to `tenantId` and Credo's issuer's, in turns; Credo is stopped after.
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
  try {
    await issuancesInTurns(context, sides, peersScenario);
  } finally {
    // Its sessions stay in memory: it goes before the groups that follow are measured.
    await stopProcess(credo.child);
  }
}

/**
 * Complete issuances of each side in turns, a row of `scenario` each: its endpoints found once from its
 * first offer's issuer metadata, one credential checked, a warm-up as long as the slices, then
 * settings.slices slices of each, alternating which goes first.
 * @param {any} context
 * @param {{ at: import('./wallet-rows.mjs').WalletTarget, offer: () => Promise<any> }[]} sides
 * @param {string} scenario
 */
export async function issuancesInTurns(context, sides, scenario) {
  const runs = [];
  for (const { at, offer } of sides) {
    const endpoints = await discoverEndpoints((await offer()).credential_issuer);
    const issue = () => issueOnce(offer, endpoints);
    checkSdJwtVc(
      context,
      `${at.process}: the in-turns issuances' SD-JWT VCs are ES256 with x5c, disclosures and cnf`,
      at.process,
      await issue(),
    );
    log(`OpenID4VCI [${at.process}]: warming up complete issuances`);
    // As long as the slices together: alone (BENCH_ONLY=peers) both sides still sped up slice by
    // slice after the usual warm-up (153 to 215 issuances/s), and the ratio with them.
    if (settings.warmup > 0) await loops(settings.duration, settings.connections, issue);
    runs.push({ at, issue, slices: /** @type {any[]} */ ([]) });
  }
  const seconds = settings.duration / settings.slices;
  for (let slice = 1; slice <= settings.slices; slice++) {
    for (const run of slice % 2 === 1 ? runs : [...runs].reverse()) {
      const part = await measureLoops(run.at, run.issue, seconds);
      run.slices.push(part);
      log(
        `OpenID4VCI in turns, slice ${slice}/${settings.slices} [${run.at.process}]: ` +
          `${Math.round((part.measured.requests / part.measured.seconds) * 10) / 10} issuances/s`,
      );
    }
  }
  for (const run of runs) {
    const one = combine(run.slices);
    row(context, scenario, run.at.process, one.measured, one.usage, one.otherCpuPercent);
  }
}
