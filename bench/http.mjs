// @ts-check
/** HTTP calls that prepare a run: the issuer's discovery, access tokens, tenants through the API. */
import { apiPath, env } from './settings.mjs';

/** @typedef {{ issuer: string, token_endpoint: string, jwks_uri: string }} OpenIdConfiguration */

/** @returns {Promise<OpenIdConfiguration>} */
export async function discover(issuerUrl) {
  const response = await fetch(`${issuerUrl}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`OpenID discovery at ${issuerUrl}: ${response.status}`);
  return /** @type {OpenIdConfiguration} */ (await response.json());
}

/**
 * The bench user's token, renewed every 4 minutes: access tokens last 600 s, a run with long scenarios
 * lasts longer.
 */
export function tokenSource(tokenEndpoint) {
  let cached;
  return async () => {
    if (cached === undefined || Date.now() - cached.at > 240_000) {
      cached = { value: await accessToken(tokenEndpoint), at: Date.now() };
    }
    return cached.value;
  };
}

async function accessToken(tokenEndpoint) {
  const response = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: 'agent-client',
      grant_type: 'password',
      username: env.BENCH_USERNAME || 'admin',
      password: env.BENCH_PASSWORD || 'admin',
    }),
  });
  if (!response.ok) throw new Error(`Token request: ${response.status} ${await response.text()}`);
  return /** @type {{ access_token: string }} */ (await response.json()).access_token;
}

/**
 * `count` access tokens of the bench user, one after another: the issuer's brute-force protection
 * reserves a failure for each attempt until its password is checked, so parallel logins of one user
 * read as quick failures and lock it out for a while.
 */
export async function accessTokens(tokenEndpoint, count) {
  const tokens = [];
  for (let n = 0; n < count; n++) tokens.push(await accessToken(tokenEndpoint));
  return tokens;
}

export async function createTenantsThroughApi(baseUrl, token, ids) {
  // A few at a time: this is preparation, not measurement.
  for (let start = 0; start < ids.length; start += 8) {
    await Promise.all(
      ids.slice(start, start + 8).map(async (id) => {
        const response = await fetch(
          `${baseUrl}${apiPath}/tenants/create?id=${id}&label=${encodeURIComponent(`Bench ${id}`)}`,
          { method: 'POST', headers: { authorization: `Bearer ${token}` } },
        );
        if (response.status !== 201) {
          throw new Error(`Creating tenant ${id}: ${response.status} ${await response.text()}`);
        }
      }),
    );
  }
}
