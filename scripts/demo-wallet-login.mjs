// @ts-check
/**
 * The demo wallet's authorization code flow (docs/oid4vci.md, "The authorization code flow"): for an
 * offer with the `authorization_code` grant, the wallet pushes its request (PAR, PKCE S256), prints the
 * link a person opens in a browser to log in, and takes the code at a loopback redirect URI (RFC 8252
 * §7.3) on a free port, checking `iss` (RFC 9207) before it trades the code for a token.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';

/** The public client's id: wallets are not registered (docs/oid4vci.md). */
export const demoWalletClientId = 'agent-service-demo-wallet';
const loginTimeoutMs = 5 * 60_000;

/**
 * @param {import('@openid4vc/openid4vci').Openid4vciClient} client a client that sends demoWalletClientId
 * @param {any} credentialOffer @param {any} issuerMetadata @param {string} configurationId
 */
export async function tokenByLogin(client, credentialOffer, issuerMetadata, configurationId) {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const redirectUri = `http://127.0.0.1:${/** @type {any} */ (server.address()).port}/callback`;
  try {
    const { authorizationRequestUrl, pkce, authorizationServer } =
      await client.createAuthorizationRequestUrlFromOffer({
        clientId: demoWalletClientId,
        redirectUri,
        credentialOffer,
        issuerMetadata,
        scope: configurationId,
      });
    console.log('open this link in a browser and log in (local mode: erika / erika):');
    console.log(authorizationRequestUrl);
    const back = await redirected(server, redirectUri);
    if (back.get('iss') !== authorizationServer)
      throw new Error(`the redirect came from ${back.get('iss')}, not ${authorizationServer}`);
    const code = back.get('code');
    if (code === null)
      throw new Error(
        `the login ended with ${back.get('error')}: ${back.get('error_description')}`,
      );
    return await client.retrieveAuthorizationCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata,
      authorizationCode: code,
      pkceCodeVerifier: /** @type {any} */ (pkce).codeVerifier,
      redirectUri,
    });
  } finally {
    server.close();
    server.closeAllConnections();
  }
}

/** The query of the first request to the redirect URI's path; fails after loginTimeoutMs. */
function redirected(server, redirectUri) {
  return /** @type {Promise<URLSearchParams>} */ (
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('nobody logged in within 5 minutes')),
        loginTimeoutMs,
      );
      server.on('request', (request, response) => {
        const url = new URL(request.url ?? '/', redirectUri);
        if (url.pathname !== '/callback') return response.writeHead(404).end();
        response
          .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Back in the demo wallet: you may close this tab.');
        clearTimeout(timer);
        resolve(url.searchParams);
      });
    })
  );
}
