import {
  postForm,
  startTestService,
  tokenPath,
  type ApiResponse,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import { oidcPath } from './support/browser.js';

/**
 * Client credentials in HTTP Basic at the token and logout endpoints. RFC 6749 §2.3.1 has both halves
 * form-encoded before Base64; Keycloak decodes them with Java's URLDecoder (BasicAuthHelper.RFC6749), so
 * `+` is a space and a malformed escape is an error its AuthenticationProcessor turns into 400
 * unauthorized_client "Unexpected error when authenticating client".
 */

/** A secret that needs form-encoding: a space, a plus and a percent sign. */
const serviceSecret = 'open sesame+1%';

function basic(username: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
}

/** application/x-www-form-urlencoded, as RFC 6749 Appendix B asks: a space is `+`. */
function formEncode(text: string): string {
  return new URLSearchParams({ text }).toString().slice('text='.length);
}

const unexpectedError = {
  error: 'unauthorized_client',
  error_description: 'Unexpected error when authenticating client',
};

describe('HTTP Basic client credentials', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ env: { AGENT_SERVICE_CLIENT_SECRET: serviceSecret } });
  });

  afterAll(async () => {
    await service.close();
  });

  const clientCredentials = (headers: Record<string, string>) =>
    postForm(service.url, tokenPath, { grant_type: 'client_credentials' }, headers);

  const answer = (response: ApiResponse) => ({ status: response.status, body: response.body });

  it('decodes both halves as form-encoded text, a plus being a space', async () => {
    const response = await clientCredentials(
      basic(formEncode('agent-service'), formEncode(serviceSecret)),
    );
    expect(response.status).toBe(200);
    expect((response.body as TokenResponseBody).access_token).toEqual(expect.any(String));
  });

  it('answers a secret with an incomplete escape as Keycloak does, not with a 500', async () => {
    expect(answer(await clientCredentials(basic('agent-service', '%E0%A4%A')))).toEqual({
      status: 400,
      body: unexpectedError,
    });
  });

  it('answers a client id with an escape that is not hexadecimal as Keycloak does', async () => {
    expect(answer(await clientCredentials(basic('%zz', 'whatever')))).toEqual({
      status: 400,
      body: unexpectedError,
    });
  });

  it('answers the same for a public client named in the form, and issues no token', async () => {
    const response = await postForm(
      service.url,
      tokenPath,
      { grant_type: 'password', client_id: 'agent-client', username: 'demo', password: 'demo' },
      basic('agent-client', 'trailing%'),
    );
    expect(answer(response)).toEqual({ status: 400, body: unexpectedError });
  });

  it('refuses a logout with malformed Basic credentials and keeps the session', async () => {
    const tokens = (
      await postForm(service.url, tokenPath, {
        grant_type: 'password',
        client_id: 'agent-client',
        username: 'demo',
        password: 'demo',
      })
    ).body as TokenResponseBody;
    const logout = await postForm(
      service.url,
      `${oidcPath}/logout`,
      { refresh_token: tokens.refresh_token! },
      basic('agent-client', '%'),
    );
    expect(answer(logout)).toEqual({ status: 400, body: unexpectedError });
    const refreshed = await postForm(service.url, tokenPath, {
      grant_type: 'refresh_token',
      client_id: 'agent-client',
      refresh_token: tokens.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
  });
});
