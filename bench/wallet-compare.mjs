// @ts-check
/**
 * BENCH_COMPARE's wallet endpoints in turns: the credential and the response endpoint of this checkout
 * and of the compared one, `settings.slices` rounds each, the requests prepared just before each slice
 * (each is sent once) and which checkout goes first alternating, so that the machine's drift skews
 * both alike. The rows measured one checkout after the other drift by more than a change's effect
 * (docs/performance.md, "The response endpoint's trust in one read").
 */
import {
  credentialEndpointScenario,
  measureCredentialEndpoint,
  prepareCredentialRequests,
} from './oid4vci.mjs';
import { prepareAnswers, receiveCredential, responseEndpointScenario } from './oid4vp.mjs';
import { compareTarget, measuredInTurns, row, serviceTarget } from './wallet-rows.mjs';
import { log, settings } from './settings.mjs';

/** @param {string} scenario */
export const inTurnsScenario = (scenario) => `${scenario}, in turns with BENCH_COMPARE`;

/** Requests per checkout and slice: a tenant keeps at most 1,000 open offers and pending requests. */
const perSlice = 450;

/**
 * @typedef {import('./wallet-rows.mjs').WalletTarget} WalletTarget
 * @typedef {{ at: WalletTarget, apiToken: string, credential?: string }} Turn
 */

/**
 * One row per checkout, measured in turns: `prepare` makes a slice's requests, `measure` sends them.
 * @param {any} context
 * @param {Turn[]} turns
 * @param {string} scenario
 * @param {(turn: Turn, count: number) => Promise<any[]>} prepare
 * @param {(turn: Turn, requests: any[]) => Promise<any>} measure
 */
async function rowsInTurns(context, turns, scenario, prepare, measure) {
  log(`${scenario} [${turns.map(({ at }) => at.process).join(', ')}]: ${settings.slices} slices`);
  const combined = await measuredInTurns(turns, perSlice, prepare, measure);
  for (const [index, { at }] of turns.entries()) {
    const { measured, usage, otherCpuPercent } = combined[index];
    row(context, inTurnsScenario(scenario), at.process, measured, usage, otherCpuPercent);
  }
}

/**
 * The credential and response endpoints of the service and BENCH_COMPARE's checkout in turns, with
 * the tenants and configurations the wallet rows before set up on both.
 * @param {any} context
 * @param {string} issuingTenant
 * @param {string} verifierTenant
 */
export async function measureWalletInTurns(context, issuingTenant, verifierTenant) {
  /** @type {Turn[]} */
  const turns = [];
  for (const at of [serviceTarget(context), compareTarget(context)]) {
    const apiToken = await (at.token ?? context.token)();
    turns.push({
      at,
      apiToken,
      credential: await receiveCredential(at.url, apiToken, issuingTenant),
    });
  }
  await rowsInTurns(
    context,
    turns,
    credentialEndpointScenario,
    ({ at, apiToken }, count) =>
      prepareCredentialRequests(at.url, apiToken, [issuingTenant], count),
    ({ at, apiToken }, requests) => measureCredentialEndpoint(at, apiToken, requests),
  );
  await rowsInTurns(
    context,
    turns,
    responseEndpointScenario,
    ({ at, apiToken, credential }, count) =>
      prepareAnswers(at, apiToken, verifierTenant, String(credential), count),
    ({ at, apiToken }, answers) => measureCredentialEndpoint(at, apiToken, answers),
  );
}
