// @ts-check
/**
 * BENCH_COMPARE's wallet rows in turns: complete issuances, and the credential and the response
 * endpoint of this checkout and of the compared one, `settings.slices` rounds each, the endpoints'
 * requests prepared just before each slice (each is sent once) and which checkout goes first
 * alternating, so that the machine's drift skews both alike: rows measured one checkout after the
 * other drift by more than a change's effect (docs/performance.md, "The response endpoint's trust in
 * one read").
 */
import {
  credentialEndpointScenario,
  issuanceScenario,
  prepareCredentialRequests,
  serviceOffer,
} from './oid4vci.mjs';
import { issuancesInTurns } from './peers.mjs';
import { prepareAnswers, receiveCredential, responseEndpointScenario } from './oid4vp.mjs';
import { compareTarget, rowsInTurns, serviceTarget } from './wallet-rows.mjs';

/** @param {string} scenario */
export const inTurnsScenario = (scenario) => `${scenario}, in turns with BENCH_COMPARE`;

/**
 * Complete issuances, then the credential and response endpoints, of the service and BENCH_COMPARE's
 * checkout in turns, with the tenants and configurations the wallet rows before set up on both.
 * @param {any} context
 * @param {string} issuingTenant
 * @param {string} verifierTenant
 */
export async function measureWalletInTurns(context, issuingTenant, verifierTenant) {
  const checkouts = [];
  for (const at of [serviceTarget(context), compareTarget(context)]) {
    const token = await (at.token ?? context.token)();
    checkouts.push({
      at,
      token,
      credential: await receiveCredential(at.url, token, issuingTenant),
    });
  }
  await issuancesInTurns(
    context,
    checkouts.map(({ at, token }) => ({
      at,
      offer: () => serviceOffer(at.url, token, issuingTenant),
    })),
    inTurnsScenario(issuanceScenario),
  );
  await rowsInTurns(
    context,
    inTurnsScenario(credentialEndpointScenario),
    checkouts.map(({ at, token }) => ({
      at,
      token,
      prepare: (count) => prepareCredentialRequests(at.url, token, [issuingTenant], count),
    })),
  );
  await rowsInTurns(
    context,
    inTurnsScenario(responseEndpointScenario),
    checkouts.map(({ at, token, credential }) => ({
      at,
      token,
      prepare: (count) => prepareAnswers(at, token, verifierTenant, credential, count),
    })),
  );
}
