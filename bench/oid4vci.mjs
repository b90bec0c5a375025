// @ts-check
/**
 * OpenID4VCI: complete pre-authorized issuances (offer, token, nonce, credential) per second, and the
 * credential endpoint alone beside a bare node:http baseline that checks the proof and signs the same
 * SD-JWT VC with the same library (bench/sd-jwt-baseline.mjs).
 */
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { startSdJwtBaseline, startSdJwtStackFloor } from './processes.mjs';
import { baselineTurns, check, row, rowsInTurns, sampled } from './wallet-rows.mjs';
import { apiPath, log, settings } from './settings.mjs';

// HAIP 1.0: the service signs its ES256 SD-JWT VCs with an x5c header; the run checks that it did.
export const issuanceScenario = 'OpenID4VCI issuance (offer, token, nonce, credential), with x5c';
export const credentialEndpointScenario = 'POST {issuer}/credential, with x5c';
export const sdJwtBaselineProcess = 'SD-JWT baseline';
export const sdJwtStackFloorProcess = 'SD-JWT stack floor';
export const configurationId = 'bench-identity';
export const claims = { given_name: 'Erika', family_name: 'Mustermann', birthdate: '1964-08-12' };

/** The wallet's key and a proof of possession for `audience` with `nonce` (OpenID4VCI 1.0 App. F.1). */
export const wallet = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const walletJwk = wallet.publicKey.export({ format: 'jwk' });
export function proof(audience, nonce) {
  return new SignJWT({ nonce })
    .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: walletJwk })
    .setAudience(audience)
    .setIssuedAt()
    .sign(wallet.privateKey);
}

/**
 * A POST that must succeed; its JSON answer.
 * @param {string} url
 * @param {string} path
 * @param {{ token?: string, tenantId?: string, json?: unknown, form?: Record<string, string> }} [options]
 * @returns {Promise<any>}
 */
export async function call(url, path, options = {}) {
  const { token, tenantId, json, form } = options;
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(tenantId === undefined ? {} : { 'x-tenant-id': tenantId }),
      'content-type': form === undefined ? 'application/json' : 'application/x-www-form-urlencoded',
    },
    body: form === undefined ? JSON.stringify(json ?? {}) : new URLSearchParams(form).toString(),
  });
  const body = await response.json();
  if (!response.ok)
    throw new Error(`${url}${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/** A credential offer's pre-authorized code traded at `endpoints.token`, and a nonce from `endpoints.nonce`. */
async function redeem(credentialOffer, endpoints) {
  const { access_token: accessToken } = await call(endpoints.token, '', {
    form: {
      grant_type: preAuthorizedGrant,
      'pre-authorized_code': credentialOffer.grants[preAuthorizedGrant]['pre-authorized_code'],
    },
  });
  const { c_nonce: nonce } = await call(endpoints.nonce, '');
  return { accessToken, audience: credentialOffer.credential_issuer, nonce };
}

/** The service's offer of the identity configuration to `tenantId`: its credential offer object. */
export async function serviceOffer(url, apiToken, tenantId) {
  const offer = await call(url, `${apiPath}/oid4vci/offers`, {
    token: apiToken,
    tenantId,
    json: { credentialConfigurationId: configurationId, claims },
  });
  return offer.credentialOffer;
}

/** One issuance up to the credential request: offer, token, nonce; what the credential request needs. */
export async function readyToRequest(url, apiToken, tenantId) {
  const issuer = `/ctrl/oid4vci/${tenantId}`;
  const credentialOffer = await serviceOffer(url, apiToken, tenantId);
  const endpoints = { token: `${url}${issuer}/token`, nonce: `${url}${issuer}/nonce` };
  return { ...(await redeem(credentialOffer, endpoints)), issuer };
}

/**
 * @typedef {{ token: string, nonce: string, credential: string }} IssuerEndpoints
 * @param {string} identifier an issuer's URL
 * @param {string} kind its metadata document
 * @returns {Promise<any>}
 */
async function wellKnown(identifier, kind) {
  const { origin, pathname } = new URL(identifier);
  // The well-known segment goes between origin and path (OpenID4VCI 1.0 §12.2.2, RFC 8414 §3.1).
  const response = await fetch(`${origin}/.well-known/${kind}${pathname.replace(/\/$/, '')}`);
  if (!response.ok) throw new Error(`${kind} of ${identifier}: ${response.status}`);
  return response.json();
}

/**
 * A credential issuer's token, nonce and credential endpoints, from its metadata and its
 * authorization server's: what a wallet reads once, not per issuance.
 * @param {string} credentialIssuer @returns {Promise<IssuerEndpoints>}
 */
export async function discoverEndpoints(credentialIssuer) {
  const issuer = await wellKnown(credentialIssuer, 'openid-credential-issuer');
  const server = await wellKnown(
    issuer.authorization_servers?.[0] ?? credentialIssuer,
    'oauth-authorization-server',
  );
  return {
    token: server.token_endpoint,
    nonce: issuer.nonce_endpoint,
    credential: issuer.credential_endpoint,
  };
}

/**
 * One complete pre-authorized issuance: the offer `offer()` makes, its code traded for a token, a
 * nonce, and the credential asked for with a proof; the credential response.
 * @param {() => Promise<any>} offer @param {IssuerEndpoints} endpoints
 */
export async function issueOnce(offer, endpoints) {
  const credentialOffer = await offer();
  const ready = await redeem(credentialOffer, endpoints);
  return call(endpoints.credential, '', {
    token: ready.accessToken,
    json: credentialBody(
      credentialOffer.credential_configuration_ids[0],
      await proof(ready.audience, ready.nonce),
    ),
  });
}

/** A credential request's body: one configuration, one proof (OpenID4VCI 1.0 §8.2). */
const credentialBody = (id, jwt) => ({ credential_configuration_id: id, proofs: { jwt: [jwt] } });

export function credentialRequest(ready, jwt) {
  return {
    method: 'POST',
    path: `${ready.issuer}/credential`,
    token: ready.accessToken,
    body: credentialBody(configurationId, jwt),
  };
}

/**
 * Checks that a credential response's first credential is an ES256 SD-JWT VC with x5c, each of the
 * claims disclosable and bound to a key (`cnf`); its type and status are logged and reported beside.
 */
export function checkSdJwtVc(context, target, processName, answer) {
  const [jwt, ...disclosures] = answer.credentials[0].credential.split('~');
  const [header, payload] = jwt
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
  const x5c = Array.isArray(header.x5c) ? header.x5c.length : 0;
  const value =
    `${header.alg}, x5c of ${x5c} certificate(s) (${header.typ}, ` +
    `${disclosures.filter(Boolean).length} disclosures, ${payload.cnf?.jwk ? 'cnf' : 'no cnf'}, ` +
    `${payload.status === undefined ? 'no status' : 'status'})`;
  log(`OpenID4VCI [${processName}]: SD-JWT VCs signed with ${value}`);
  const disclosed = disclosures.filter(Boolean).length >= Object.keys(claims).length;
  check(
    context,
    target,
    value,
    header.alg === 'ES256' && x5c > 0 && disclosed && !!payload.cnf?.jwk,
  );
}

/** Runs `iteration` in `connections` loops for `seconds`: completions, per-completion latency. */
export async function loops(seconds, connections, iteration) {
  const latencies = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          await iteration();
          latencies.push(performance.now() - started);
        } catch (error) {
          if (errors++ === 0) log(`an issuance failed: ${String(error)}`);
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return { completed: latencies.length, errors, p50: at(0.5), p99: at(0.99) };
}

/**
 * `iteration` (one complete issuance) in settings.connections loops for `seconds` at `at`, sampled: a
 * row's numbers.
 * @param {import('./wallet-rows.mjs').WalletTarget} at @param {() => Promise<unknown>} iteration
 */
export function measureLoops(at, iteration, seconds = settings.duration) {
  return sampled(
    at.pids,
    async () => {
      const started = performance.now();
      const result = await loops(seconds, settings.connections, iteration);
      return {
        requests: result.completed,
        seconds: (performance.now() - started) / 1000,
        latencyP50Ms: result.p50,
        latencyP99Ms: result.p99,
        errors: result.errors,
      };
    },
    at.postgresPid,
  );
}

/**
 * The identity configuration the wallet rows issue, made for `tenantId` unless it has it already; `id`
 * and `more` (such as claimsFromLogin) for another of the same claims.
 */
export async function ensureConfiguration(
  url,
  apiToken,
  tenantId,
  id = configurationId,
  more = {},
) {
  const response = await fetch(`${url}${apiPath}/oid4vci/credential-configurations/create`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiToken}`,
      'x-tenant-id': tenantId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      id,
      format: 'dc+sd-jwt',
      vct: 'https://credentials.example.com/identity_credential',
      claims: Object.keys(claims).map((name) => ({ path: [name], mandatory: true })),
      ...more,
    }),
  });
  if (!response.ok && response.status !== 409) {
    throw new Error(`configuration for ${tenantId}: ${response.status} ${await response.text()}`);
  }
}

/**
 * `count` credential requests ready to send (offer, token, nonce and proof each), over `tenantIds` in
 * turn, a batch of `settings.connections` at a time: preparation, not measurement.
 */
export async function prepareCredentialRequests(url, apiToken, tenantIds, count) {
  const requests = [];
  for (let n = 0; n < count; n += settings.connections) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(settings.connections, count - n) }, async (_, index) => {
        const ready = await readyToRequest(
          url,
          apiToken,
          tenantIds[(n + index) % tenantIds.length],
        );
        return credentialRequest(ready, await proof(ready.audience, ready.nonce));
      }),
    );
    requests.push(...batch);
  }
  return requests;
}

/**
 * The OpenID4VCI rows at `at` (the service, or two instances behind nginx): complete issuances, then
 * the credential endpoint, with `withBaseline` in turns with the SD-JWT baseline and stack floor.
 * @param {any} context
 * @param {string} tenantId
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function measureOid4vci(context, tenantId, at, withBaseline = true) {
  const apiToken = await (at.token ?? context.token)();
  await ensureConfiguration(at.url, apiToken, tenantId);

  // The credential endpoint's path with a certificate (HAIP 1.0): the first credential's header says so.
  const first = await readyToRequest(at.url, apiToken, tenantId);
  const firstRequest = credentialRequest(first, await proof(first.audience, first.nonce));
  const answer = await call(at.url, firstRequest.path, {
    token: firstRequest.token,
    json: firstRequest.body,
  });
  checkSdJwtVc(
    context,
    `${at.process}: the credential rows' SD-JWT VCs are ES256 with x5c, disclosures and cnf`,
    at.process,
    answer,
  );

  log(`OpenID4VCI [${at.process}]: complete issuances`);
  // The loop the peer row drives Credo's issuer with, the endpoints from the issuer's metadata.
  const endpoints = await discoverEndpoints(first.audience);
  const flow = await measureLoops(at, () =>
    issueOnce(() => serviceOffer(at.url, apiToken, tenantId), endpoints),
  );
  row(context, issuanceScenario, at.process, flow.measured, flow.usage, flow.otherCpuPercent);

  /** @type {import('./wallet-rows.mjs').Turn[]} */
  const turns = [
    {
      at,
      token: apiToken,
      prepare: (count) => prepareCredentialRequests(at.url, apiToken, [tenantId], count),
    },
  ];
  if (withBaseline) {
    const baselineIssuer = 'https://baseline.invalid/issuer';
    const baselineNonce = 'baseline-nonce';
    const baselineRequests = () =>
      Promise.all(
        Array.from({ length: 64 }, async () =>
          credentialRequest(
            { issuer: '', accessToken: 'none', audience: baselineIssuer, nonce: baselineNonce },
            await proof(baselineIssuer, baselineNonce),
          ),
        ),
      );
    const bare = {
      processName: sdJwtBaselineProcess,
      started: await startSdJwtBaseline(baselineIssuer, baselineNonce),
    };
    const floor = {
      processName: sdJwtStackFloorProcess,
      start: (databaseUrl) => startSdJwtStackFloor(databaseUrl, baselineIssuer, baselineNonce),
    };
    turns.push(...(await baselineTurns(context, bare, floor, baselineRequests)));
  }
  // Offer, token, nonce and proof made for each request just before its slice.
  await rowsInTurns(context, credentialEndpointScenario, turns);
}
