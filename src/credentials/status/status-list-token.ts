import { type JoseSigningKey } from '../../jose/algorithms.js';
import { signCompactJws, signingHeader } from '../../jose/jws.js';
import { encodeLst, tokenStatusListBytes } from './token-status-list.js';

/** How long a relying party may keep a token before it fetches it again (draft-ietf-oauth-status-list §5.1, `ttl`). */
export const statusListTokenTtlSeconds = 60;

/** How long a token is valid (`exp`): a day, so that one kept offline stays usable for that long. */
export const statusListTokenLifetimeSeconds = 86_400;

/**
 * A Status List Token in JWT form (draft-ietf-oauth-status-list §5.1): `typ: statuslist+jwt`, `iss` the
 * credentials' issuer (so that a verifier finds the key as it did for the credential), `sub` its own
 * URL, `iat`, `exp`, `ttl` and the list, 1 bit per status, from a Bitstring Status List's bits.
 */
export async function statusListToken(
  list: { issuer: string; uri: string; bits: Uint8Array; iat: number },
  key: JoseSigningKey,
): Promise<string> {
  // With the key's x5c when it has one: HAIP 1.0 wants the list verifiable like the credential.
  const header = signingHeader(key, 'statuslist+jwt');
  const payload = {
    iss: list.issuer,
    sub: list.uri,
    iat: list.iat,
    exp: list.iat + statusListTokenLifetimeSeconds,
    ttl: statusListTokenTtlSeconds,
    status_list: { bits: 1, lst: encodeLst(tokenStatusListBytes(list.bits)) },
  };
  return signCompactJws(header, payload, (data) => key.sign(data));
}
