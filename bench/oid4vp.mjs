// @ts-check
/**
 * OpenID4VP: answers verified per second at a tenant's response endpoint (an SD-JWT VC with key binding,
 * its status list cached), in turns with a bare node:http baseline that verifies the same kind of presentation
 * with the same library in memory (bench/sd-jwt-presentation-baseline.mjs).
 */
import { createHash, randomBytes, sign } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import {
  call,
  claims,
  configurationId,
  credentialRequest,
  proof,
  readyToRequest,
  wallet,
} from './oid4vci.mjs';
import { baselineTurns, checkingClientIds, rowsInTurns } from './wallet-rows.mjs';
import { startScript } from './processes.mjs';
import { apiPath, log, settings } from './settings.mjs';

// HAIP 1.0: request objects signed with x5c, the client id an x509_hash one; the run checks both.
export const responseEndpointScenario = 'POST {verifier}/requests/{reference}/response, with x5c';
export const presentationBaselineProcess = 'SD-JWT presentation baseline';
export const presentationFloorProcess = 'SD-JWT presentation stack floor';
const vct = 'https://credentials.example.com/identity_credential';
const queryId = 'identity';
const dcqlQuery = {
  credentials: [
    {
      id: queryId,
      format: 'dc+sd-jwt',
      meta: { vct_values: [vct] },
      claims: [{ path: ['given_name'] }, { path: ['family_name'] }],
    },
  ],
};

/** @param {string | ArrayBuffer} data @param {string} alg */
const hasher = (data, alg) => {
  if (alg !== 'sha-256') throw new Error(alg);
  const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
  return new Uint8Array(createHash('sha256').update(bytes).digest());
};
/** The holder side: presents given_name and family_name with a key binding JWT by the wallet's key. */
const holder = new SDJwtInstance({
  hasher,
  saltGenerator: () => randomBytes(16).toString('base64url'),
  kbSignAlg: 'ES256',
  kbSigner: (input) =>
    sign('sha256', Buffer.from(input), {
      key: wallet.privateKey,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64url'),
});

/** @param {string} credential @param {string} nonce @param {string} aud */
function present(credential, nonce, aud) {
  return holder.present(
    credential,
    { given_name: true, family_name: true },
    { kb: { payload: { iat: Math.floor(Date.now() / 1000), aud, nonce } } },
  );
}

/** An SD-JWT VC for the wallet's key from the tenant's OpenID4VCI issuer (its configuration exists). */
export async function receiveCredential(url, apiToken, issuingTenant) {
  const ready = await readyToRequest(url, apiToken, issuingTenant);
  const request = credentialRequest(ready, await proof(ready.audience, ready.nonce));
  const answer = await call(url, request.path, { token: request.token, json: request.body });
  return /** @type {string} */ (answer.credentials[0].credential);
}

/** A pending request of the verifier tenant and the wallet's answer to it, ready to post. */
async function answerFor(url, apiToken, verifierTenant, credential) {
  const created = await call(url, `${apiPath}/oid4vp/requests`, {
    token: apiToken,
    tenantId: verifierTenant,
    json: { dcqlQuery },
  });
  const requestUri = new URL(created.authorizationRequestUri).searchParams.get('request_uri');
  const response = await fetch(/** @type {string} */ (requestUri));
  if (!response.ok) throw new Error(`the request object answered ${response.status}`);
  const requestObject = await response.text();
  const object = decodeJwt(requestObject);
  const x5c = decodeProtectedHeader(requestObject).x5c;
  const presentation = await present(credential, String(object.nonce), String(object.client_id));
  return {
    method: 'POST',
    path: new URL(String(object.response_uri)).pathname,
    form: { vp_token: JSON.stringify({ [queryId]: [presentation] }), state: String(object.state) },
    clientId: String(object.client_id),
    x5c: Array.isArray(x5c) ? x5c.length : 0,
  };
}

/**
 * `count` answers ready to post (a request, its request object fetched, a presentation of `credential`
 * for it each), a batch of `settings.connections` at a time: preparation, not measurement.
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function prepareAnswers(at, apiToken, verifierTenant, credential, count) {
  const answers = [];
  for (let n = 0; n < count; n += settings.connections) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(settings.connections, count - n) }, () =>
        answerFor(at.url, apiToken, verifierTenant, credential),
      ),
    );
    answers.push(...batch);
  }
  return answers;
}

/**
 * The OpenID4VP row at `at` (the service, or two instances behind nginx), with `withBaseline` in turns
 * with the presentation baseline and stack floor.
 * @param {any} context
 * @param {string} issuingTenant
 * @param {string} verifierTenant
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function measureOid4vp(
  context,
  issuingTenant,
  verifierTenant,
  at,
  withBaseline = true,
) {
  const apiToken = await (at.token ?? context.token)();
  const credential = await receiveCredential(at.url, apiToken, issuingTenant);

  /** @type {import('./wallet-rows.mjs').Turn[]} */
  const turns = [
    {
      at,
      token: apiToken,
      prepare: checkingClientIds(context, `${at.process}: the response row`, (count) =>
        prepareAnswers(at, apiToken, verifierTenant, credential, count),
      ),
    },
  ];
  if (!withBaseline) {
    await rowsInTurns(context, responseEndpointScenario, turns);
    return;
  }

  // The baseline verifies presentations of the same credential against the issuer's public key.
  const issuerKeys = /** @type {{ jwks: { keys: { kid: string }[] } }} */ (
    await (await fetch(`${at.url}/.well-known/jwt-vc-issuer/ctrl/oid4vci/${issuingTenant}`)).json()
  );
  const kid = JSON.parse(Buffer.from(credential.split('.')[0], 'base64url').toString()).kid;
  const issuerJwk = issuerKeys.jwks.keys.find((key) => key.kid === kid);
  const nonce = 'baseline-nonce';
  // Shaped like the service's client ids (HAIP 1.0: x509_hash, a SHA-256 of the leaf certificate).
  const aud = `x509_hash:${createHash('sha256').update('baseline').digest('base64url')}`;
  const baselineAnswers = () =>
    Promise.all(
      Array.from({ length: 64 }, async () => ({
        method: 'POST',
        path: '/response',
        form: {
          vp_token: JSON.stringify({ [queryId]: [await present(credential, nonce, aud)] }),
          state: 'baseline',
        },
      })),
    );
  const bare = {
    processName: presentationBaselineProcess,
    started: await startScript('bench/sd-jwt-presentation-baseline.mjs', {
      ISSUER_JWK: JSON.stringify(issuerJwk),
      NONCE: nonce,
      AUD: aud,
    }),
  };
  const floor = {
    processName: presentationFloorProcess,
    start: (databaseUrl) =>
      startScript('bench/sd-jwt-presentation-stack-floor.mjs', {
        DATABASE_URL: databaseUrl,
        ISSUER_JWK: JSON.stringify(issuerJwk),
        NONCE: nonce,
        AUD: aud,
      }),
  };
  // A request, its request object and a presentation made for each answer just before its slice.
  turns.push(...(await baselineTurns(context, bare, floor, baselineAnswers)));
  await rowsInTurns(context, responseEndpointScenario, turns);
  log(
    `OpenID4VP: configuration ${configurationId} presented with ${Object.keys(claims).length} claims`,
  );
}
