import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import { Browser, loginForm, pkcePair } from './browser.js';

/** A person at the independent provider, with claims the test chooses. */
export const maxClaims = {
  given_name: 'Max',
  family_name: 'Mustermann',
  birthdate: '1980-02-29',
  email: 'max@login.example',
  email_verified: true,
};

export interface RunningProvider {
  issuer: string;
  close(): Promise<void>;
}

/**
 * panva's oidc-provider (an independent OpenID provider) on loopback over http, with one confidential
 * client whose redirect URI is `redirectUri`, and its development login (any username, any password),
 * whose accounts carry `maxClaims` unless `accounts` names other claims for their username.
 */
export async function startOidcProvider(
  client: { clientId: string; clientSecret: string; redirectUri: string },
  accounts: Record<string, Record<string, unknown>> = {},
): Promise<RunningProvider> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const configuration: Configuration = {
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: [client.redirectUri],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: {
      openid: ['sub'],
      profile: ['given_name', 'family_name', 'birthdate'],
      email: ['email', 'email_verified'],
    },
    findAccount: (_context, sub) => ({
      accountId: sub,
      claims: () => ({ sub, ...(accounts[sub] ?? maxClaims) }),
    }),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'op-key', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['login-provider-test-cookies'] },
    // Set, so that the provider does not print a notice for each default it uses.
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
    },
    features: { devInteractions: { enabled: true } },
  };
  // Its warnings name what a test wants: the in-memory store and the development login.
  const warn = console.warn;
  console.warn = () => undefined;
  const provider = new Provider(issuer, configuration);
  console.warn = warn;
  const handle = provider.callback();
  server.on('request', (request, response) => void handle(request, response));
  return { issuer, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * What a browser does between `start`'s URL and the redirect back: the provider's login form (and
 * its consent page, if it shows one) submitted; answers the callback URL the provider redirects to.
 * Each URL it went to is added to `visited`, when given.
 */
export async function browserLogin(
  startUrl: string,
  username: string,
  password: string,
  callbackPrefix: string,
  visited: string[] = [],
): Promise<URL> {
  const browser = new Browser();
  let url = startUrl;
  let fields: [string, string][] | undefined;
  for (let hop = 0; hop < 12; hop += 1) {
    visited.push(url);
    const answer = fields === undefined ? await browser.get(url) : await browser.post(url, fields);
    fields = undefined;
    if (answer.location !== null) {
      const next = new URL(answer.location, url);
      if (next.toString().startsWith(callbackPrefix)) return next;
      url = next.toString();
      continue;
    }
    if (answer.status !== 200) throw new Error(`HTTP ${answer.status} at ${url}: ${answer.text}`);
    const form = loginForm(answer.text);
    const login = answer.text.includes('name="password"');
    url = new URL(form.action, url).toString();
    fields = login
      ? [
          ...form.hidden,
          [/<input[^>]*name="login"/.test(answer.text) ? 'login' : 'username', username],
          ['password', password],
        ]
      : form.hidden;
  }
  throw new Error('the login did not come back within 12 hops');
}

export { pkcePair };

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export interface ForgingProvider extends RunningProvider {
  /** The key its JWK Set publishes (kid `published`). */
  readonly publishedKey: SigningKey;
  /** What its token endpoint answers as `id_token` next. */
  answer(idToken: (issuer: string) => Promise<string>): void;
  /** What its userinfo endpoint answers next (default `{sub: 'mallory'}`). */
  answerUserinfo(claims: Record<string, unknown>): void;
}

/** Signs `claims` as an ES256 ID token naming the published key's kid. */
export function signIdToken(key: SigningKey, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'published' }).sign(key);
}

/** A made-up provider on loopback whose token endpoint answers whatever ID token the test forges. */
export async function startForgingProvider(): Promise<ForgingProvider> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'published', alg: 'ES256' };
  let idToken: (issuer: string) => Promise<string> = () => Promise.resolve('none');
  let userinfo: Record<string, unknown> = { sub: 'mallory' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', issuer).pathname;
    const json = (body: unknown) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(body));
    };
    request.resume();
    if (path === '/.well-known/openid-configuration') {
      json({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        userinfo_endpoint: `${issuer}/userinfo`,
        response_types_supported: ['code'],
      });
    } else if (path === '/jwks') {
      json({ keys: [jwk] });
    } else if (path === '/userinfo') {
      json(userinfo);
    } else if (path === '/token') {
      void idToken(issuer).then((token) =>
        json({ access_token: 'opaque', token_type: 'Bearer', id_token: token }),
      );
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    publishedKey: privateKey,
    answer: (next) => {
      idToken = next;
    },
    answerUserinfo: (claims) => {
      userinfo = claims;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
