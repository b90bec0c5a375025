import {
  clientAuthenticationNone,
  Oauth2Client,
  Oauth2ClientErrorResponseError,
  type ClientAuthenticationCallback,
} from '@openid4vc/oauth2';
import { type CredentialOfferObject, Openid4vciClient } from '@openid4vc/openid4vci';
import { browserLogin } from './login-providers.js';
import { walletCallbacks, walletKey, type WalletKey } from './oid4vci-wallet.js';

/** The authorization code flow's public client: its client_id and redirect URI. */
export const codeFlowClient = {
  clientId: 'https://wallet.example',
  redirectUri: 'https://wallet.example/callback',
};

/** Where the wallet asks, and how the browser gets from `{issuer}/authorize` back to the wallet. */
export interface CodeFlow {
  issuer: string;
  browse(authorizationRequestUrl: string): Promise<URL>;
}

/** What the wallet asks from: an offer's link, or (wallet-initiated) a configuration id. */
export type CodeFlowStart =
  { link: string; state?: string } | { configurationId: string; state?: string };

export const codeFlowKeys = async () => ({ holder: await walletKey(), dpop: await walletKey() });

/** A configuration whose claims all come from the login, as `id` (docs/oid4vci.md). */
export const personConfiguration = (id: string) => ({
  id,
  format: 'dc+sd-jwt' as const,
  vct: `https://credentials.example/${id.toLowerCase()}`,
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['family_name'], mandatory: true },
    { path: ['birthdate'] },
    { path: ['email'] },
  ],
  claimsFromLogin: {
    given_name: 'given_name',
    family_name: 'family_name',
    birthdate: 'birthdate',
    email: 'email',
  },
});

/** Erika as the bundled realm has her (keycloak/agent-cloud-realm.json, docs/login-provider.md). */
export const erika = {
  given_name: 'Erika',
  family_name: 'Mustermann',
  birthdate: '1964-08-12',
  email: 'erika.mustermann@agent-cloud.local',
};

/**
 * The browser, by HTTP: `{issuer}/authorize`, the provider's login page (`loginAt`), the form posted
 * as `username`, the redirects back through `{issuer}/login/callback` to the wallet's redirect URI.
 */
export const browserFlow = (
  issuer: string,
  loginAt: string,
  username: string,
  password: string,
): CodeFlow => ({
  issuer,
  browse: async (url) => {
    const visited: string[] = [];
    const back = await browserLogin(url, username, password, codeFlowClient.redirectUri, visited);
    const at = (prefix: string) => visited.findIndex((hop) => hop.startsWith(prefix));
    const order = [`${issuer}/authorize?`, loginAt, `${issuer}/login/callback?`].map(at);
    expect(order).not.toContain(-1);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    return back;
  },
});

/** The OAuth error an endpoint answered OWF's client with. */
export const oauthError = (answer: Promise<unknown>) =>
  answer.then(
    () => 'no error',
    (error: unknown) =>
      error instanceof Oauth2ClientErrorResponseError ? error.errorResponse.error : error,
  );

/**
 * The wallet's half of the flow up to the code, with OWF's library (@openid4vc/openid4vci + oauth2 0.4)
 * as a public client: PAR with PKCE S256 and DPoP, the browser's part, the answer at the redirect URI
 * with `iss` the credential issuer (RFC 9207) and the wallet's `state`, if it sent one.
 */
export async function authorizeWallet(
  flow: CodeFlow,
  start: CodeFlowStart,
  keys: { holder: WalletKey; dpop: WalletKey },
  authentication?: ClientAuthenticationCallback,
) {
  const { clientId, redirectUri } = codeFlowClient;
  const callbacksAs = (how = authentication ?? clientAuthenticationNone({ clientId })) =>
    walletCallbacks([keys.holder, keys.dpop], {}, undefined, how);
  const callbacks = callbacksAs();
  const client = new Openid4vciClient({ callbacks });
  const issuerMetadata = await client.resolveIssuerMetadata(flow.issuer);
  const credentialOffer: CredentialOfferObject =
    'link' in start
      ? await client.resolveCredentialOffer(start.link)
      : {
          credential_issuer: flow.issuer,
          credential_configuration_ids: [start.configurationId],
          grants: { authorization_code: {} },
        };
  const [configurationId] = credentialOffer.credential_configuration_ids;
  const dpop = {
    signer: { method: 'jwk' as const, publicJwk: keys.dpop.publicJwk as never, alg: 'ES256' },
  };
  // From an offer by scope; wallet-initiated by authorization_details (OpenID4VCI 1.0 §5.1.1-2).
  const details =
    'link' in start
      ? {}
      : {
          authorization_details: [
            { type: 'openid_credential', credential_configuration_id: configurationId },
          ],
        };
  const request = {
    clientId,
    redirectUri,
    dpop,
    ...('link' in start ? { scope: configurationId } : {}),
    additionalRequestPayload: details,
  };
  // OWF's openid4vci 0.4.6 sends no state of the wallet's from an offer; its OAuth 2 client does.
  const { authorizationRequestUrl, pkce } =
    start.state === undefined
      ? await client.createAuthorizationRequestUrlFromOffer({
          ...request,
          credentialOffer,
          issuerMetadata,
        })
      : await new Oauth2Client({ callbacks }).createAuthorizationRequestUrl({
          ...request,
          state: start.state,
          authorizationServerMetadata: issuerMetadata.authorizationServers[0],
          resource: flow.issuer,
          additionalRequestPayload: {
            ...details,
            issuer_state: credentialOffer.grants?.authorization_code?.issuer_state,
          },
        });
  expect(authorizationRequestUrl).toMatch(/request_uri=urn%3Aietf%3Aparams%3Aoauth%3A/);
  const back = await flow.browse(authorizationRequestUrl);
  expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
  expect(back.searchParams.get('iss')).toBe(flow.issuer);
  expect(back.searchParams.get('state')).toBe(start.state ?? null);
  // Another `how` redeems as another client (or the same one without its authentication).
  const redeem = (
    code: string,
    verifier = pkce!.codeVerifier,
    how?: ClientAuthenticationCallback,
  ) =>
    (how === undefined
      ? client
      : new Openid4vciClient({ callbacks: callbacksAs(how) })
    ).retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: verifier,
      redirectUri,
      dpop,
    });
  return { client, issuerMetadata, configurationId, dpop, back, redeem };
}

/**
 * The whole flow: the code, the DPoP-bound token, one SD-JWT VC (and `redeem`, to spend the code again);
 * or the error at the redirect URI.
 */
export async function issueByCode(
  flow: CodeFlow,
  start: CodeFlowStart,
  keys: { holder: WalletKey; dpop: WalletKey },
  authentication?: ClientAuthenticationCallback,
) {
  const authorized = await authorizeWallet(flow, start, keys, authentication);
  const { client, issuerMetadata, configurationId, back } = authorized;
  const code = back.searchParams.get('code');
  if (code === null) return { error: back.searchParams.get('error') };
  const token = await authorized.redeem(code);
  expect(token.accessTokenResponse.token_type).toBe('DPoP');
  const { c_nonce: nonce } = await client.requestNonce({ issuerMetadata });
  const { jwt } = await client.createCredentialRequestJwtProof({
    issuerMetadata,
    credentialConfigurationId: configurationId,
    signer: { method: 'jwk', publicJwk: keys.holder.publicJwk as never, alg: 'ES256' },
    nonce,
  });
  const answer = await client.retrieveCredentials({
    issuerMetadata,
    // OWF's client asks by configuration id; the issuer takes it beside credential_identifier.
    credentialConfigurationId: configurationId,
    proofs: { jwt: [jwt] },
    accessToken: token.accessTokenResponse.access_token,
    dpop: token.dpop ?? authorized.dpop,
  });
  expect(answer.response.status).toBe(200);
  const [entry] = answer.credentialResponse.credentials as { credential: string }[];
  return {
    code,
    token: token.accessTokenResponse,
    credential: entry.credential,
    redeem: authorized.redeem,
  };
}
