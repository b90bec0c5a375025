// @ts-check
/** The baselines' token check: what the service checks of an access token, with `jose`. */
import { createLocalJWKSet, jwtVerify } from 'jose';

/**
 * A check of `Authorization: Bearer` against the key set at `jwksUrl` (fetched once, kept): signature,
 * iss, aud, exp (5 s tolerance), typ, role, tenant. It answers the HTTP status the service would.
 */
export async function bearerCheck(jwksUrl, issuer, audience = 'agent-api') {
  const jwksResponse = await fetch(jwksUrl);
  if (!jwksResponse.ok) throw new Error(`baseline: JWKS fetch failed: ${jwksResponse.status}`);
  const keys = createLocalJWKSet(
    /** @type {import('jose').JSONWebKeySet} */ (await jwksResponse.json()),
  );
  /** @returns {Promise<number>} 200, 401 or 403 */
  return async function authorize(request, tenantId) {
    const header = request.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) return 401;
    let payload;
    try {
      ({ payload } = await jwtVerify(header.slice(7), keys, {
        issuer,
        audience,
        algorithms: ['RS256'],
        clockTolerance: 5,
      }));
    } catch {
      return 401;
    }
    if (payload.typ !== 'Bearer') return 401;
    const roles = /** @type {any} */ (payload.realm_access)?.roles ?? [];
    if (roles.includes('agent-admin')) return 200;
    const tenantIds = /** @type {string[]} */ (payload.tenant_ids ?? []);
    return roles.includes('agent-user') && tenantIds.includes(tenantId) ? 200 : 403;
  };
}
