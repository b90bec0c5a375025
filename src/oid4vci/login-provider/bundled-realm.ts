import { type Settings } from '../../config/settings.js';
import { type ProviderMetadata } from './provider-metadata.js';

/** The bundled realm's client for issuance logins (keycloak/agent-cloud-realm.json): public, PKCE S256. */
export const bundledClientId = 'agent-issuance-login';

/** What a login asks for unless the tenant's provider says otherwise. */
export const defaultScopes: readonly string[] = ['openid', 'profile', 'email'];

const keycloakEndpoints = '/protocol/openid-connect';

/**
 * Where the service itself reaches the bundled realm: the realm under `AUTH_JWKS_URL`'s origin when that
 * is Keycloak's certs URL (docker-compose: `http://keycloak:8080/...`, since the public issuer URL names
 * the gateway), this process over loopback for the embedded issuer, else the issuer URL.
 */
export function bundledBackChannel(settings: Settings, ownPort: () => number): string {
  const certs = `${keycloakEndpoints}/certs`;
  if (settings.AUTH_JWKS_URL?.endsWith(certs) === true) {
    return settings.AUTH_JWKS_URL.slice(0, -certs.length);
  }
  if (settings.authIssuerEmbedded && settings.AUTH_JWKS_URL === undefined) {
    return `http://127.0.0.1:${ownPort()}${new URL(settings.authIssuerUrl).pathname}`;
  }
  return settings.authIssuerUrl;
}

/**
 * The bundled realm's endpoints at Keycloak's fixed paths, with no discovery: its discovery document
 * names public URLs only, which the back channel may not reach (docs/login-provider.md).
 */
export function bundledMetadata(issuer: string, backChannel: string): ProviderMetadata {
  const back = `${backChannel}${keycloakEndpoints}`;
  return {
    issuer,
    authorizationEndpoint: `${issuer}${keycloakEndpoints}/auth`,
    tokenEndpoint: `${back}/token`,
    jwksUri: `${back}/certs`,
    userinfoEndpoint: `${back}/userinfo`,
    tokenAuthMethod: 'client_secret_basic',
  };
}
