import { decodeFormComponent } from './form-url-decoding.js';
import { constantTimeEqual } from './hashing.js';
import { type Form } from './issuer-http.js';
import { OAuthError } from '../common/oauth-error.js';
import { type RealmClient } from './realm-file.js';
import { type Realm } from './realm.js';

/**
 * The client of a token or logout request: public clients name themselves, confidential ones prove it
 * with their secret, in the form or in HTTP Basic (Keycloak's ClientIdAndSecretAuthenticator).
 */
export function authenticateClient(
  realm: Realm,
  form: Form,
  authorization: string | undefined,
): RealmClient {
  const basic = basicCredentials(authorization);
  const clientId = basic?.clientId ?? form.client_id;
  if (clientId === undefined || clientId === '') {
    throw new OAuthError(400, 'invalid_client', 'Missing client_id parameter');
  }
  const client = realm.client(clientId);
  if (client === undefined)
    throw new OAuthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
  if (client.publicClient !== true) {
    const secret = basic?.secret ?? form.client_secret;
    if (secret === undefined || !constantTimeEqual(secret, client.secret ?? '')) {
      throw new OAuthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    }
  }
  return client;
}

/** `Authorization: Basic` credentials, both halves form-encoded before Base64 (RFC 6749 §2.3.1). */
function basicCredentials(
  header: string | undefined,
): { clientId: string; secret: string } | undefined {
  if (header === undefined || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  const clientId = decodeFormComponent(decoded.slice(0, separator));
  const secret = decodeFormComponent(decoded.slice(separator + 1));
  if (clientId === undefined || secret === undefined) {
    // Keycloak's URLDecoder throws on a malformed escape; AuthenticationProcessor answers thus.
    throw new OAuthError(400, 'unauthorized_client', 'Unexpected error when authenticating client');
  }
  return { clientId, secret };
}
