// @ts-check
/**
 * OpenID4VCI's authorization code flow (docs/oid4vci.md): complete issuances per second, each an offer
 * through the API, PAR with PKCE S256, authorize, the person's login at the bundled realm, the callback,
 * the code grant, a nonce and a credential request. Reported beside the pre-authorized row, not judged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { call, claims, ensureConfiguration, measureLoops, proof } from './oid4vci.mjs';
import { row } from './wallet-rows.mjs';
import { apiPath, log, settings } from './settings.mjs';

export const authorizationCodeScenario =
  'OpenID4VCI authorization-code issuance (offer, PAR, authorize, login, callback, token, nonce, credential), with x5c';
const configurationId = 'bench-login';
const clientId = 'bench-wallet';
// Never visited: the bench reads the code from the callback's redirect.
const redirectUri = 'http://127.0.0.1:9/callback';
const person = { username: 'erika', password: process.env.BENCH_PERSON_PASSWORD ?? 'erika' };

/** The attribute's text: the login page escapes `=` and `&` as numeric references. @param {string} text */
const unescapeHtml = (text) =>
  text
    .replace(/&#(\d+);/g, (_whole, code) => String.fromCharCode(Number(code)))
    .replaceAll('&amp;', '&');

/**
 * A browser's way from `start` to the wallet's redirect URI: redirects followed by hand, cookies kept
 * in `browser`, the login form submitted where the realm shows it (counted in `browser.forms`).
 * @param {string} start @param {{ cookies: Map<string, string>, forms: number }} browser
 */
async function browse(start, browser) {
  let url = start;
  /** @type {string | undefined} */
  let form;
  for (let hop = 0; hop < 8; hop += 1) {
    const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      method: form === undefined ? 'GET' : 'POST',
      headers: {
        ...(cookie === '' ? {} : { cookie }),
        ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: form,
      redirect: 'manual',
    });
    form = undefined;
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      browser.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = response.headers.get('location');
    const html = await response.text();
    if (location !== null) {
      url = new URL(location, url).toString();
      if (url.startsWith(redirectUri)) return new URL(url);
      continue;
    }
    const action = /<form[^>]*\saction="([^"]*)"/.exec(html)?.[1];
    if (response.status !== 200 || action === undefined || !html.includes('name="password"'))
      throw new Error(`no login form at ${url}: ${response.status}`);
    browser.forms += 1;
    url = new URL(unescapeHtml(action), url).toString();
    form = new URLSearchParams(person).toString();
  }
  throw new Error('the login did not come back within 8 hops');
}

/** One complete authorization-code issuance by `browser`. */
async function issueByLogin(url, apiToken, tenantId, browser) {
  const issuer = `/ctrl/oid4vci/${tenantId}`;
  const offer = await call(url, `${apiPath}/oid4vci/offers`, {
    token: apiToken,
    tenantId,
    json: { credentialConfigurationId: configurationId, grant: 'authorization_code', claims: {} },
  });
  const verifier = randomBytes(32).toString('base64url');
  const { request_uri: requestUri } = await call(url, `${issuer}/par`, {
    form: {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      issuer_state: offer.credentialOffer.grants.authorization_code.issuer_state,
    },
  });
  const back = await browse(
    `${url}${issuer}/authorize?${new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString()}`,
    browser,
  );
  const code = back.searchParams.get('code');
  if (code === null) throw new Error(`the login ended with ${back.searchParams.get('error')}`);
  const { access_token: accessToken } = await call(url, `${issuer}/token`, {
    form: {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      client_id: clientId,
    },
  });
  const { c_nonce: nonce } = await call(url, `${issuer}/nonce`);
  await call(url, `${issuer}/credential`, {
    token: accessToken,
    json: {
      credential_configuration_id: configurationId,
      proofs: { jwt: [await proof(offer.credentialOffer.credential_issuer, nonce)] },
    },
  });
}

/**
 * The authorization-code row at `at`: each of the loops is one browser that keeps its cookies, so a
 * realm with single sign-on would skip the form after the first login; the run reports how many forms
 * each issuance took.
 * @param {any} context
 * @param {string} tenantId
 * @param {import('./wallet-rows.mjs').WalletTarget} at
 */
export async function measureAuthorizationCode(context, tenantId, at) {
  const apiToken = await (at.token ?? context.token)();
  // The identity configuration's claims, all from the login (the demo person has each).
  await ensureConfiguration(at.url, apiToken, tenantId, configurationId, {
    claimsFromLogin: Object.fromEntries(Object.keys(claims).map((name) => [name, name])),
  });
  const browsers = Array.from({ length: settings.connections }, () => ({
    cookies: new Map(),
    forms: 0,
  }));
  // Each browser logs in once before the measurement: what follows is "a login already made".
  await Promise.all(browsers.map((browser) => issueByLogin(at.url, apiToken, tenantId, browser)));
  for (const browser of browsers) browser.forms = 0;
  log(`OpenID4VCI [${at.process}]: complete authorization-code issuances`);
  // As many browsers as loops: each loop takes one that no other loop is using.
  const idle = [...browsers];
  const flow = await measureLoops(at, async () => {
    const browser = /** @type {(typeof browsers)[number]} */ (idle.pop());
    try {
      await issueByLogin(at.url, apiToken, tenantId, browser);
    } finally {
      idle.push(browser);
    }
  });
  row(
    context,
    authorizationCodeScenario,
    at.process,
    flow.measured,
    flow.usage,
    flow.otherCpuPercent,
  );
  const forms = browsers.reduce((total, browser) => total + browser.forms, 0);
  const perIssuance = flow.measured.requests === 0 ? 0 : forms / flow.measured.requests;
  context.checks.push({
    target: `complete authorization-code issuances [${at.process}]`,
    value:
      `${context.rows.at(-1).requestsPerSecond}/s (p99 ${flow.measured.latencyP99Ms} ms), service ` +
      `${context.rows.at(-1).cpuMsPerRequest ?? 'n/a'} ms, PostgreSQL ` +
      `${context.rows.at(-1).postgresCpuMsPerRequest ?? 'n/a'} ms CPU each; login forms per issuance ` +
      `${perIssuance.toFixed(2)} (${perIssuance > 0 ? 'no single sign-on: a form login each time' : 'single sign-on'})`,
    pass: null,
  });
}
