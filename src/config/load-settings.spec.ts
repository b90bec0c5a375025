import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { ConfigError, loadSettings } from './load-settings.js';
import { createTestCa } from '../../test/support/test-ca.js';

const masterKey = randomBytes(32).toString('base64');

function dataDir(): string {
  return mkdtempSync(join(tmpdir(), 'agent-config-'));
}

function expectConfigError(env: Record<string, string>, variable: string): void {
  let caught: unknown;
  try {
    loadSettings({ DATA_DIR: dataDir(), ...env });
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigError);
  expect((caught as ConfigError).variable).toBe(variable);
  expect((caught as ConfigError).message).toContain(variable);
}

describe(loadSettings.name, () => {
  it('runs on embedded defaults with an empty environment', () => {
    const directory = dataDir();
    const config = loadSettings({ DATA_DIR: directory });
    expect(config).toMatchObject({
      NODE_ENV: 'development',
      PORT: 8080,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      authIssuerUrl: 'http://localhost:8080/auth/realms/agent-cloud',
      authIssuerEmbedded: true,
      authJwksUrl: 'http://localhost:8080/auth/realms/agent-cloud/protocol/openid-connect/certs',
      AUTH_AUDIENCE: 'agent-api',
      DATA_DIR: directory,
    });
    expect(config.DATABASE_URL).toBeUndefined();
    // Local mode's key is the secrets module's (secrets/master-keys.ts); the configuration has none.
    expect(config).not.toHaveProperty('masterKey');
  });

  it('only reads: it creates no file or folder, not even in local mode', () => {
    const directory = join(dataDir(), 'not-yet');
    loadSettings({ DATA_DIR: directory });
    expect(() => statSync(directory)).toThrow();
  });

  it('derives the issuer and JWKS URLs from PUBLIC_BASE_URL', () => {
    const config = loadSettings({
      DATA_DIR: dataDir(),
      PUBLIC_BASE_URL: 'https://agent.example.com/',
    });
    expect(config.PUBLIC_BASE_URL).toBe('https://agent.example.com');
    expect(config.authIssuerUrl).toBe('https://agent.example.com/auth/realms/agent-cloud');
  });

  it('derives the public origin from PORT when PUBLIC_BASE_URL is unset or blank, so another port just works', () => {
    for (const env of [{ PORT: '21080' }, { PORT: '21080', PUBLIC_BASE_URL: '  ' }]) {
      const config = loadSettings({ DATA_DIR: dataDir(), ...env });
      expect(config).toMatchObject({
        PUBLIC_BASE_URL: 'http://localhost:21080',
        authIssuerUrl: 'http://localhost:21080/auth/realms/agent-cloud',
        authJwksUrl: 'http://localhost:21080/auth/realms/agent-cloud/protocol/openid-connect/certs',
      });
    }
  });

  it('keeps a PUBLIC_BASE_URL that is set, whatever PORT is', () => {
    const config = loadSettings({
      DATA_DIR: dataDir(),
      PORT: '21080',
      PUBLIC_BASE_URL: 'https://agent.example.com',
    });
    expect(config.PUBLIC_BASE_URL).toBe('https://agent.example.com');
    expect(config.authIssuerUrl).toBe('https://agent.example.com/auth/realms/agent-cloud');
  });

  it('keeps an internal AUTH_JWKS_URL apart from the public issuer', () => {
    const config = loadSettings({
      DATA_DIR: dataDir(),
      AUTH_ISSUER_URL: 'https://id.example.com/auth/realms/agent-cloud/',
      AUTH_JWKS_URL: 'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/certs',
    });
    expect(config.authIssuerUrl).toBe('https://id.example.com/auth/realms/agent-cloud');
    expect(config.authIssuerEmbedded).toBe(false);
    expect(config.authJwksUrl).toBe(
      'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/certs',
    );
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_BASE_URL: 'localhost:8080' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'http://localhost:8080/agent' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'ftp://localhost' }, 'PUBLIC_BASE_URL'],
    [{ DATABASE_URL: 'mysql://localhost/agent' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ AUTH_ISSUER_URL: 'keycloak' }, 'AUTH_ISSUER_URL'],
    [{ AUTH_JWKS_URL: 'http://x/certs?debug=1' }, 'AUTH_JWKS_URL'],
    [{ AUTH_AUDIENCE: 'agent api' }, 'AUTH_AUDIENCE'],
    [{ AGENT_MASTER_KEY: 'short' }, 'AGENT_MASTER_KEY'],
    [{ AGENT_MASTER_KEY: randomBytes(16).toString('base64') }, 'AGENT_MASTER_KEY'],
    [{ NODE_ENV: 'staging' }, 'NODE_ENV'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HOST: 'a host with spaces' }, 'HOST'],
    [{ HTTP_REQUEST_TIMEOUT_MS: '0' }, 'HTTP_REQUEST_TIMEOUT_MS'],
    [{ HTTP_MAX_CONNECTIONS: 'many' }, 'HTTP_MAX_CONNECTIONS'],
    [
      { HTTP_HEADERS_TIMEOUT_MS: '40000', HTTP_REQUEST_TIMEOUT_MS: '30000' },
      'HTTP_HEADERS_TIMEOUT_MS',
    ],
  ])('stops on %j, naming %s', (env, variable) => {
    expectConfigError(env, variable);
  });

  it('believes X-Forwarded-For from the proxies TRUST_PROXY names only, never by hop count', () => {
    const trusted = (value?: string) =>
      loadSettings({ DATA_DIR: dataDir(), ...(value === undefined ? {} : { TRUST_PROXY: value }) })
        .TRUST_PROXY;
    expect(trusted()).toEqual([]);
    expect(trusted('none')).toEqual([]);
    expect(trusted('loopback')).toEqual(['loopback']);
    expect(trusted('10.0.0.0/8, 192.0.2.1,fd00::/8 ,uniquelocal')).toEqual([
      '10.0.0.0/8',
      '192.0.2.1',
      'fd00::/8',
      'uniquelocal',
    ]);
    for (const value of ['1', 'true', '10.0.0.0/33', '127.1', 'none,loopback', 'proxy.local'])
      expectConfigError({ TRUST_PROXY: value }, 'TRUST_PROXY');
  });

  it('fetches status lists and delivers webhooks to loopback by default in local mode only', () => {
    const allowed = (env: Record<string, string>) =>
      loadSettings({ DATA_DIR: dataDir(), ...env }).statusListAllowPrivateTargets;
    const database = { DATABASE_URL: 'postgres://agent@db/agent' };
    expect(allowed({})).toBe('loopback');
    expect(loadSettings({ DATA_DIR: dataDir() }).webhookAllowPrivateTargets).toBe('loopback');
    expect(
      loadSettings({ DATA_DIR: dataDir(), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })
        .webhookAllowPrivateTargets,
    ).toBe(true);
    expect(allowed(database)).toBe(false);
    expect(allowed({ AUTH_ISSUER_URL: 'https://id.example.com/realms/a' })).toBe(false);
    expect(allowed({ ...database, STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' })).toBe(true);
    expect(allowed({ STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'false' })).toBe(false);
    expectConfigError(
      { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'yes' },
      'STATUS_LIST_ALLOW_PRIVATE_TARGETS',
    );
  });

  it("trusts OUTBOUND_CA_FILE's certificates besides Node's roots, and refuses a file without one", async () => {
    const certificate = readFileSync((await createTestCa()).caFile, 'utf8');
    const file = join(dataDir(), 'ca.pem');
    writeFileSync(file, `a comment before it\n${certificate}`);
    const ca = loadSettings({ DATA_DIR: dataDir(), OUTBOUND_CA_FILE: file }).OUTBOUND_CA_FILE;
    expect(ca).toEqual([...rootCertificates, certificate]);
    expect(loadSettings({ DATA_DIR: dataDir() }).OUTBOUND_CA_FILE).toBeUndefined();

    const empty = join(dataDir(), 'empty.pem');
    writeFileSync(empty, 'no certificate here');
    expectConfigError({ OUTBOUND_CA_FILE: empty }, 'OUTBOUND_CA_FILE');
    const broken = join(dataDir(), 'broken.pem');
    writeFileSync(broken, '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    expectConfigError({ OUTBOUND_CA_FILE: broken }, 'OUTBOUND_CA_FILE');
    expectConfigError({ OUTBOUND_CA_FILE: join(dataDir(), 'missing.pem') }, 'OUTBOUND_CA_FILE');
  });

  it('reads the webhook retry schedule, refusing a wait over a day or a malformed list (empty: the default)', () => {
    expect(
      loadSettings({ DATA_DIR: dataDir(), WEBHOOK_RETRY_DELAYS_MS: '100,2000' })
        .WEBHOOK_RETRY_DELAYS_MS,
    ).toEqual([100, 2000]);
    expectConfigError({ WEBHOOK_RETRY_DELAYS_MS: '5000,86400001' }, 'WEBHOOK_RETRY_DELAYS_MS');
    expectConfigError({ WEBHOOK_RETRY_DELAYS_MS: '5s' }, 'WEBHOOK_RETRY_DELAYS_MS');
  });

  it('does not echo a database password in its message', () => {
    try {
      loadSettings({ DATA_DIR: dataDir(), DATABASE_URL: 'mysql://user:s3cret-pass@db/agent' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).not.toContain('s3cret-pass');
    }
  });

  describe('with NODE_ENV=production', () => {
    const production = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://agent:secret@db:5432/agent',
      AUTH_ISSUER_URL: 'https://id.example.com/auth/realms/agent-cloud',
      AGENT_MASTER_KEY: masterKey,
    };

    it('starts when the database, the issuer and the master key are given', () => {
      expect(loadSettings({ DATA_DIR: dataDir(), ...production }).NODE_ENV).toBe('production');
    });

    it.each(['DATABASE_URL', 'AUTH_ISSUER_URL', 'AGENT_MASTER_KEY'])(
      'refuses to fall back to an embedded default for %s',
      (variable) => {
        expectConfigError({ ...production, [variable]: '' }, variable);
      },
    );
  });
});
