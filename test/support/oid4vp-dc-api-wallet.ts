import { randomBytes } from 'node:crypto';
import { type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { openid4vpWallet } from './oid4vp-holder.js';

type Json = Record<string, unknown>;

/** What `navigator.credentials.get` hands the wallet: the request's protocol and data. */
export interface DcApiRequest {
  protocol: string;
  data: Json;
}

/**
 * What a wallet built on OWF's library (@openid4vc/openid4vp) does with a DC API request and the
 * origin the browser reports (OpenID4VP 1.0 appendix A): parse `data`, verify a signed request's
 * `x5c` chain up to one of `trustedRoots` (DER) and its `expected_origins`.
 */
export function resolveDcApiRequest(
  request: DcApiRequest,
  origin: string,
  trustedRoots: readonly Buffer[] = [],
): Promise<ResolvedOpenid4vpAuthorizationRequest> {
  const wallet = openid4vpWallet(trustedRoots);
  const parsed = wallet.parseOpenid4vpAuthorizationRequest({ authorizationRequest: request.data });
  return wallet.resolveOpenId4vpAuthorizationRequest({
    authorizationRequestPayload: parsed.params,
    origin,
  });
}

/**
 * The `data` the browser returns for the wallet's answer (appendix A.4), made by the library:
 * `{vp_token}` for dc_api, `{response}`, the JWE to the request's key, for dc_api.jwt.
 */
export async function dcApiResponseData(
  resolved: ResolvedOpenid4vpAuthorizationRequest,
  vpToken: Record<string, (string | Json)[]>,
  origin: string,
): Promise<Json> {
  const request = resolved.authorizationRequestPayload;
  const created = await openid4vpWallet().createOpenid4vpAuthorizationResponse({
    authorizationRequestPayload: request,
    authorizationResponsePayload: { vp_token: vpToken as never },
    origin,
    ...(request.response_mode === 'dc_api.jwt'
      ? {
          jarm: {
            encryption: { nonce: randomBytes(16).toString('base64url') },
            serverMetadata: {
              authorization_signing_alg_values_supported: [],
              authorization_encryption_alg_values_supported: ['ECDH-ES'],
              authorization_encryption_enc_values_supported: ['A256GCM', 'A128GCM'],
            },
          },
        }
      : {}),
  });
  if (created.jarm !== undefined) return { response: created.jarm.responseJwt };
  return { vp_token: created.authorizationResponsePayload.vp_token };
}
