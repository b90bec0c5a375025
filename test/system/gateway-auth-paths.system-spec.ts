import { Cleanup } from './support/cleanup.js';
import { startGateway, type Gateway } from './support/nginx.js';
import { freePort } from './support/ports.js';
import {
  rawRequest,
  startRecordingUpstream,
  type RawResponse,
  type RecordingUpstream,
} from './support/raw-http.js';

/**
 * Real nginx from the template with a recording stand-in for Keycloak behind /auth: whatever spelling a
 * client sends, nothing but the agent-cloud realm and the static resources may reach the upstream, and
 * those reach it byte for byte as sent.
 */
type Refusal =
  /** nginx's problem: a path under /auth that is not public. */
  | 'not-found'
  /** nginx's problem: a public prefix with a path Keycloak might read differently than nginx. */
  | 'malformed'
  /** Outside /auth after nginx's normalisation: the server's catch-all 404. */
  | 'elsewhere'
  /** nginx refuses the request line itself. */
  | 'bad-request';

const attacks: [target: string, refusal: Refusal][] = [
  ['/auth/admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/admin/master/console/', 'not-found'],
  ['/auth/admin;x/realms/agent-cloud/users', 'not-found'],
  ['/auth/admin%3Bx/realms/agent-cloud/users', 'not-found'],
  ['/auth/admin%3bx/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/..;/admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/..;/..;/admin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/protocol;x/openid-connect/certs', 'malformed'],
  ['/auth/realms/agent-cloud;x/protocol/openid-connect/certs', 'not-found'],
  ['/auth/realms/agent-cloud/%2e%2e/%2e%2e/admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/%2E%2E%2F%2E%2E%2Fadmin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/..%2F..%2Fadmin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/..%2f..%2fadmin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/%252e%252e/%252e%252e/admin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/..%5C..%5Cadmin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/..%5c..%5cadmin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/..\\..\\admin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/%00/../../admin/realms/agent-cloud/users', 'bad-request'],
  ['/auth/realms/agent-cloud/protocol/openid-connect/certs%00', 'bad-request'],
  ['/auth/realms/agent-cloud/%EF%BC%8E%EF%BC%8E/%EF%BC%8E%EF%BC%8E/admin/', 'malformed'],
  ['/auth/realms/agent-cloud/x#/../../../admin/realms/agent-cloud/users', 'malformed'],
  ['/auth/realms/agent-cloud/protocol/openid-connect/certs;jsessionid=x', 'malformed'],
  ['/auth/admin","code":"x"}/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/protocol/openid-connect/..', 'malformed'],
  ['/auth/realms/agent-cloud/./protocol/openid-connect/certs', 'malformed'],
  ['/auth/realms/agent-cloud//protocol/openid-connect/certs', 'malformed'],
  ['/auth/realms/agent-cloud/../../admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/realms/agent-cloud/protocol/../../../admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/resources/..;/..;/admin/realms/agent-cloud/users', 'malformed'],
  ['/auth/resources/x/%2e%2e/%2e%2e/admin/realms/agent-cloud/users', 'not-found'],
  ['/auth//admin/realms/agent-cloud/users', 'not-found'],
  ['/auth/%61dmin/realms/agent-cloud/users', 'not-found'],
  ['/auth/ADMIN/realms/agent-cloud/users', 'not-found'],
  ['/auth/Admin/master/console/', 'not-found'],
  ['/auth/Realms/agent-cloud/protocol/openid-connect/certs', 'not-found'],
  ['/AUTH/admin/realms/agent-cloud/users', 'elsewhere'],
  ['/Auth/realms/agent-cloud/protocol/openid-connect/certs', 'elsewhere'],
  ['/ctrl/../auth/admin/realms/agent-cloud/users', 'not-found'],
  ['/ctrl/%2e%2e/auth/realms/agent-cloud/protocol/openid-connect/certs', 'malformed'],
  [
    '/auth/realms/master/protocol/openid-connect/auth?client_id=security-admin-console',
    'not-found',
  ],
  ['/auth/realms/master/.well-known/openid-configuration', 'not-found'],
  ['/auth/realms/agent-cloud', 'not-found'],
  ['/auth/', 'not-found'],
  ['/auth', 'elsewhere'],
  ['/auth/js/keycloak.js', 'not-found'],
  ['http://127.0.0.1/auth/admin/realms/agent-cloud/users', 'not-found'],
];

const realm = '/auth/realms/agent-cloud';
const swaggerRedirect = 'http%3A%2F%2Flocalhost%2Fctrl%2Fswagger-ui%2Foauth2-redirect.html';
const legitimate: { method: 'GET' | 'POST'; target: string; body?: string }[] = [
  {
    method: 'POST',
    target: `${realm}/protocol/openid-connect/token`,
    body: 'client_id=agent-client&grant_type=password&username=admin&password=admin',
  },
  { method: 'GET', target: `${realm}/.well-known/openid-configuration` },
  { method: 'GET', target: `${realm}/protocol/openid-connect/certs` },
  { method: 'GET', target: `${realm}/protocol/openid-connect/userinfo` },
  {
    method: 'GET',
    target:
      `${realm}/protocol/openid-connect/auth?client_id=agent-client&redirect_uri=${swaggerRedirect}` +
      '&response_type=code&scope=openid%20profile&state=a%2Fb%3B..&code_challenge_method=S256',
  },
  {
    method: 'POST',
    target: `${realm}/login-actions/authenticate?session_code=abc&execution=x-y&client_id=agent-client&tab_id=t1`,
    body: `username=admin&password=admin&redirect_uri=${swaggerRedirect}`,
  },
  {
    method: 'GET',
    target: `${realm}/protocol/openid-connect/logout?client_id=agent-client&post_logout_redirect_uri=${swaggerRedirect}`,
  },
  { method: 'GET', target: '/auth/resources/xyz/login/keycloak.v2/css/styles.css' },
];

describe('gateway: what of /auth reaches the token issuer', () => {
  const cleanup = new Cleanup();
  let gateway: Gateway;
  let upstream: RecordingUpstream;

  beforeAll(async () => {
    upstream = await startRecordingUpstream(cleanup);
    gateway = await startGateway(
      {
        // Nothing listens there: /ctrl plays no part in this file.
        app: [`127.0.0.1:${await freePort()}`],
        auth: [upstream.address],
        directory: cleanup.tempDir('gateway-auth-paths'),
      },
      cleanup,
    );
  }, 60_000);

  afterAll(() => cleanup.run(), 60_000);

  function expectRefusal(target: string, refusal: Refusal, answer: RawResponse): void {
    const status = { 'not-found': 404, malformed: 400, elsewhere: 404, 'bad-request': 400 }[
      refusal
    ];
    expect({ target, status: answer.status }).toEqual({ target, status });
    if (refusal === 'bad-request') return;
    expect({
      target,
      type: answer.headers['content-type'],
      cache: answer.headers['cache-control'],
    }).toEqual({ target, type: 'application/problem+json', cache: 'no-store' });
    const problem = JSON.parse(answer.body) as unknown;
    // The path as sent (also of an absolute-form target), up to its first character JSON would escape.
    const instance = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*/.exec(
      target.replace(/^http:\/\/[^/]+/, ''),
    )![0];
    const code = refusal === 'malformed' ? 'MALFORMED_REQUEST' : 'ROUTE_NOT_FOUND';
    expect({ target, problem }).toEqual({
      target,
      problem: {
        type: `/ctrl/problems/${code.toLowerCase().replaceAll('_', '-')}`,
        title: refusal === 'malformed' ? 'Malformed HTTP request' : 'Route not found',
        status,
        detail: expect.any(String) as string,
        instance,
        code,
      },
    });
  }

  it.each(attacks)('refuses %s without asking the upstream', async (target, refusal) => {
    const before = upstream.requests.length;
    const answer = await rawRequest(gateway.origin, target);
    expect(upstream.requests.slice(before)).toEqual([]);
    expectRefusal(target, refusal, answer);
  });

  it('refuses them with other methods as well', async () => {
    const before = upstream.requests.length;
    for (const [target, refusal] of attacks.filter(([, refusal]) => refusal !== 'bad-request')) {
      const answer = await rawRequest(gateway.origin, target, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"username":"intruder","enabled":true}',
      });
      expectRefusal(target, refusal, answer);
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('forwards the public endpoints byte for byte, query strings with encoded URLs included', async () => {
    const before = upstream.requests.length;
    for (const request of legitimate) {
      const answer = await rawRequest(gateway.origin, request.target, {
        method: request.method,
        headers:
          request.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
        body: request.body,
      });
      expect({ target: request.target, status: answer.status }).toEqual({
        target: request.target,
        status: 200,
      });
      expect(JSON.parse(answer.body)).toEqual({ recorded: request.target });
    }
    expect(upstream.requests.slice(before)).toEqual(
      legitimate.map(({ method, target, body }) => ({ method, target, body: body ?? '' })),
    );
    // The upstream's content type passes unchanged (nginx's own answers under /auth are problems).
    const stylesheet = await rawRequest(
      gateway.origin,
      '/auth/resources/xyz/login/keycloak.v2/css/styles.css',
    );
    expect(stylesheet.headers['content-type']).toBe('text/css');
  });
});
