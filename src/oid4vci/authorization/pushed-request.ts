import { invalidRequest, OAuthError } from '../../common/oauth-error.js';

/** A pushed authorization request as the issuer takes it (RFC 9126 §2.1, OpenID4VCI 1.0 §5.1). */
export interface PushedRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  walletState: string | null;
  /** The one credential configuration asked for, by `scope` or `authorization_details`; else the offer's. */
  configurationId: string | undefined;
  byAuthorizationDetails: boolean;
  issuerState: string | undefined;
  /** RFC 9449 §10: the DPoP key thumbprint the wallet binds the code to without a proof here. */
  dpopJkt: string | undefined;
}

/** RFC 7636 §4.2: BASE64URL(SHA-256(verifier)) is 43 characters. */
const s256Challenge = /^[A-Za-z0-9_-]{43}$/;
const printable = /^[\x21-\x7e]+$/;
const base64url43 = /^[A-Za-z0-9_-]{43}$/;
const configurationId = /^[A-Za-z0-9_.-]{1,64}$/;
/** A wallet asks for one credential per authorization: what an offer names, what a code grants. */
const maxDetails = 1;

const invalidScope = (description: string) => new OAuthError(400, 'invalid_scope', description);
const invalidDetails = (description: string) =>
  new OAuthError(400, 'invalid_authorization_details', description);

/** The form's fields checked for shape (no database yet); refusals are OAuth errors (RFC 9126 §2.3). */
export function pushedRequestOf(form: Record<string, string>): PushedRequest {
  if (form.request !== undefined || form.request_uri !== undefined)
    throw invalidRequest('Request objects and request_uri are not accepted at the PAR endpoint.');
  if (form.response_type !== 'code') throw invalidRequest('response_type must be code.');
  const clientId = form.client_id;
  if (clientId === undefined || clientId.length > 255 || !printable.test(clientId))
    throw invalidRequest('client_id is missing or malformed.');
  const redirectUri = checkedRedirectUri(form.redirect_uri);
  if (form.code_challenge_method !== 'S256')
    throw invalidRequest('code_challenge_method must be S256 (RFC 7636).');
  if (form.code_challenge === undefined || !s256Challenge.test(form.code_challenge))
    throw invalidRequest('code_challenge must be an S256 challenge (RFC 7636 §4.2).');
  const state = form.state;
  if (state !== undefined && (state.length > 512 || !printable.test(state)))
    throw invalidRequest('state must be at most 512 printable characters.');
  const issuerState = form.issuer_state;
  if (issuerState !== undefined && !base64url43.test(issuerState))
    throw invalidRequest('issuer_state is not one of this issuer’s.');
  const dpopJkt = form.dpop_jkt;
  if (dpopJkt !== undefined && !base64url43.test(dpopJkt))
    throw invalidRequest('dpop_jkt must be a SHA-256 JWK thumbprint (RFC 9449 §10).');
  const fromDetails = detailsConfiguration(form.authorization_details);
  const fromScope = scopeConfiguration(form.scope);
  // With an offer's issuer_state the offer says which credential; without, the wallet must.
  if (fromDetails === undefined && fromScope === undefined && issuerState === undefined)
    throw invalidRequest('Ask for a credential by scope, authorization_details or issuer_state.');
  if (fromDetails !== undefined && fromScope !== undefined && fromDetails !== fromScope)
    throw invalidRequest('scope and authorization_details ask for different credentials.');
  return {
    clientId,
    redirectUri,
    codeChallenge: form.code_challenge,
    walletState: state ?? null,
    configurationId: fromDetails ?? fromScope,
    byAuthorizationDetails: fromDetails !== undefined,
    issuerState,
    dpopJkt,
  };
}

/**
 * The wallet's redirect URI (RFC 6749 §3.1.2, RFC 8252 §7): absolute, no fragment; https, http on the
 * loopback only, or a private-use scheme in reverse-domain form. Wallets are not registered, so this is
 * all that is known of it; the code goes nowhere else.
 */
function checkedRedirectUri(value: string | undefined): string {
  const refuse = () =>
    invalidRequest(
      'redirect_uri must be an https URL, an http URL on the loopback, or a private-use scheme (RFC 8252 §7).',
    );
  if (value === undefined || value.length > 2048) throw refuse();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse();
  }
  if (value.includes('#')) throw refuse();
  const scheme = url.protocol.slice(0, -1);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  const allowed =
    scheme === 'https' ||
    (scheme === 'http' && loopback) ||
    /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/.test(scheme);
  if (!allowed || url.username !== '' || url.password !== '') throw refuse();
  return value;
}

/** `authorization_details` (RFC 9396, OpenID4VCI 1.0 §5.1.1): one `openid_credential` by configuration id. */
function detailsConfiguration(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let details: unknown;
  try {
    details = JSON.parse(value);
  } catch {
    throw invalidDetails('authorization_details is not JSON.');
  }
  if (!Array.isArray(details) || details.length === 0 || details.length > maxDetails)
    throw invalidDetails(`authorization_details must be an array of ${maxDetails} entry.`);
  const [detail] = details as unknown[];
  if (typeof detail !== 'object' || detail === null || Array.isArray(detail))
    throw invalidDetails('authorization_details must hold objects.');
  const entry = detail as Record<string, unknown>;
  if (entry.type !== 'openid_credential')
    throw invalidDetails('Only authorization_details of type openid_credential are supported.');
  const id = entry.credential_configuration_id;
  if (typeof id !== 'string' || !configurationId.test(id))
    throw invalidDetails('credential_configuration_id is missing or malformed.');
  return id;
}

/** `scope` (OpenID4VCI 1.0 §5.1.2): one credential configuration's scope, which is its id. */
function scopeConfiguration(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const tokens = value.split(' ').filter((token) => token !== '');
  if (tokens.length !== 1 || !configurationId.test(tokens[0]))
    throw invalidScope('scope must be the scope of one credential configuration.');
  return tokens[0];
}
