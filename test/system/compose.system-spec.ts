import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { passwordGrant } from '../support/test-service.js';
import { AppProcess, repositoryRoot } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import {
  renderTemplate,
  templateVariables,
  templatePath,
  testNginxConfig,
  upstreamServers,
  writeNginxConfig,
} from './support/nginx.js';

/**
 * The docker-compose stack as far as it can be checked without a Docker engine: `docker-compose config`
 * (Debian's docker-compose 1.29) validates and interpolates the file, and nginx checks the rendered
 * template (docs/auth.md, Keycloak behind the gateway).
 */
const composeFile = join(repositoryRoot, 'docker-compose.yml');
/** Compose's own settings file: local mode reads `.env`, which must not hold the stack's keys. */
const envExample = join(repositoryRoot, 'compose.env.example');
const localEnvExample = join(repositoryRoot, '.env.example');
const publicOrigin = 'https://agent.example.com';

interface ComposeService {
  image?: string;
  build?: { context: string };
  command?: string[] | string;
  environment?: Record<string, string>;
  ports?: { published: number | string; target: number | string }[];
  expose?: unknown[];
  volumes?: string[];
  healthcheck?: { test: string[] | string; interval?: string; retries?: number };
  depends_on?: Record<string, { condition: string }>;
}

interface ComposeConfig {
  services: Record<string, ComposeService>;
}

/** Every variable an example file names, set or commented out (`NAME=` or `# NAME=`). */
function exampleVariables(file = envExample): string[] {
  const names = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const match = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (match !== null) names.add(match[1]);
  }
  return [...names];
}

function sampleValue(name: string): string {
  switch (name) {
    case 'AGENT_MASTER_KEY':
      return randomBytes(32).toString('base64');
    case 'PUBLIC_BASE_URL':
      return publicOrigin;
    case 'NGINX_PUBLISHED_PORT':
    case 'PORT':
      return '8080';
    case 'DATABASE_URL':
      return 'postgres://agent:sample@localhost:5432/agent';
    case 'AUTH_ISSUER_URL':
      return `${publicOrigin}/auth/realms/agent-cloud`;
    case 'AUTH_JWKS_URL':
      return 'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/certs';
    case 'AUTH_AUDIENCE':
      return 'agent-api';
    case 'DATA_DIR':
      return '.data';
    case 'NODE_ENV':
      return 'development';
    case 'LOG_LEVEL':
      return 'info';
    case 'NGINX_RATE':
      return '50r/s';
    case 'NGINX_BURST':
      return '100';
    case 'RATE_LIMIT_CALLER_PER_MINUTE':
    case 'RATE_LIMIT_IP_PER_MINUTE':
      return '600';
    case 'OTEL_EXPORTER_OTLP_ENDPOINT':
      return 'http://otel-collector:4318';
    case 'CERTIFICATE_AUTHORITY_DIR':
      return '/srv/agent-ca';
    case 'CERTIFICATE_AUTHORITY_CERT_FILE':
      return '/etc/agent/ca/ca.pem';
    case 'CERTIFICATE_AUTHORITY_KEY_FILE':
      return '/etc/agent/ca/ca.key';
    default:
      // Passwords and secrets: distinct, so that a test can tell which went where.
      return `sample-${name.toLowerCase().replaceAll('_', '-')}-${randomBytes(4).toString('hex')}`;
  }
}

describe('docker-compose stack', () => {
  const cleanup = new Cleanup();
  const directory = cleanup.tempDir('compose');
  const sample = Object.fromEntries(exampleVariables().map((name) => [name, sampleValue(name)]));

  /** `docker-compose config` with only these variables: an env file, and nothing from our environment. */
  function composeConfig(variables: Record<string, string>) {
    const envFile = join(directory, `env-${randomBytes(4).toString('hex')}`);
    writeFileSync(
      envFile,
      Object.entries(variables)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    );
    const result = spawnSync(
      'docker-compose',
      ['-f', composeFile, '--env-file', envFile, 'config'],
      {
        encoding: 'utf8',
        cwd: directory,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: directory },
        timeout: 30_000,
      },
    );
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** docker-compose prints YAML; its own YAML library (PyYAML, which docker-compose depends on) reads it. */
  function parseYaml(text: string): ComposeConfig {
    const result = spawnSync(
      'python3',
      ['-c', 'import sys, json, yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'],
      { input: text, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(`YAML parse failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as ComposeConfig;
  }

  let config: ComposeConfig;
  beforeAll(() => {
    const result = composeConfig(sample);
    if (result.status !== 0) throw new Error(`docker-compose config failed:\n${result.stderr}`);
    config = parseYaml(result.stdout);
  });

  afterAll(() => cleanup.run());

  const service = (name: string): ComposeService => {
    const found = config.services[name];
    if (found === undefined) throw new Error(`no service ${name}`);
    return found;
  };

  /** The variables the compose file requires (`${NAME:?message}`), in order of appearance. */
  const requiredVariables = [
    ...new Set(
      [...readFileSync(composeFile, 'utf8').matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map(
        (match) => match[1],
      ),
    ),
  ];

  it('documents in compose.env.example every variable the compose file reads', () => {
    expect(requiredVariables).toContain('AGENT_MASTER_KEY');
    expect(requiredVariables.filter((name) => !(name in sample))).toEqual([]);
    const definitions = readFileSync(composeFile, 'utf8')
      .split('\n')
      .filter((line) => !line.trim().startsWith('#'))
      .join('\n');
    const read = new Set(
      [...definitions.matchAll(/\$\{([A-Z][A-Z0-9_]*)[:}-]/g)].map((match) => match[1]),
    );
    expect([...read].filter((name) => !(name in sample))).toEqual([]);
  });

  it('lets a checkout hold a stack made as docs/operations.md says and run local mode beside it', async () => {
    // The checkout: compose.env made by the documented commands, .env as local mode's example has it.
    const checkout = cleanup.tempDir('checkout');
    copyFileSync(envExample, join(checkout, 'compose.env'));
    copyFileSync(localEnvExample, join(checkout, '.env'));
    const operations = readFileSync(join(repositoryRoot, 'docs/operations.md'), 'utf8');
    const secrets = [...operations.matchAll(/```bash\n([\s\S]*?)```/g)]
      .map((match) => match[1])
      .find((block) => block.includes('>> compose.env'));
    expect(secrets).toBeDefined();
    const made = spawnSync('bash', ['-e', '-c', secrets!], {
      cwd: checkout,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    expect(made.status).toBe(0);
    const composeEnv = Object.fromEntries(
      readFileSync(join(checkout, 'compose.env'), 'utf8')
        .split('\n')
        .map((line) => /^([A-Z][A-Z0-9_]*)=(.+)$/.exec(line))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    // docker-compose validates with it alone.
    const validated = composeConfig(composeEnv);
    expect({ status: validated.status, stderr: validated.stderr }).toMatchObject({ status: 0 });
    expect(parseYaml(validated.stdout).services.app.environment).toMatchObject({
      AGENT_MASTER_KEY: composeEnv.AGENT_MASTER_KEY,
    });
    // Local mode in the same checkout reads .env only: the development users keep their passwords.
    const local = await AppProcess.start(
      { name: 'local', cwd: checkout, env: { DATA_DIR: join(checkout, '.data') } },
      cleanup,
      120_000,
    );
    const admin = await passwordGrant(local.url, 'admin', 'admin');
    expect(admin.token_type).toBe('Bearer');
    expect(existsSync(join(checkout, '.data', 'master.key'))).toBe(true);
    await local.stop();
  }, 180_000);

  it('keeps the stack’s secrets out of .env.example, which local mode (npm start) reads as .env', () => {
    const local = exampleVariables(localEnvExample);
    expect(
      requiredVariables.filter((name) => name !== 'AGENT_MASTER_KEY' && local.includes(name)),
    ).toEqual([]);
    // The local example may name AGENT_MASTER_KEY (a local setting), but commented out: unset by default.
    expect(readFileSync(localEnvExample, 'utf8')).not.toMatch(/^AGENT_MASTER_KEY=/m);
  });

  it('validates with the variables of compose.env.example set', () => {
    expect(Object.keys(config.services).sort()).toEqual(['app', 'keycloak', 'nginx', 'postgres']);
  });

  it.each(requiredVariables)('refuses to start without %s and names it', (name) => {
    const result = composeConfig(
      Object.fromEntries(Object.entries(sample).filter(([variable]) => variable !== name)),
    );
    expect(result.status).not.toBe(0);
    // The message ends with the `:?` text of the first missing variable.
    expect(result.stderr).toMatch(
      new RegExp(
        `in service "[a-z]+": set ${name} in compose\\.env \\(docker compose --env-file compose\\.env up\\)`,
      ),
    );
  });

  it('runs Keycloak 26.7, pinned to a patch release, with the realm imported, under /auth, behind the proxy, on the public hostname', () => {
    const keycloak = service('keycloak');
    // A patch release, as the admin client in package.json is: a moving 26.7 tag changes under a deployment.
    expect(keycloak.image).toBe('quay.io/keycloak/keycloak:26.7.4');
    const command = Array.isArray(keycloak.command)
      ? keycloak.command
      : (keycloak.command ?? '').split(/\s+/);
    expect(command).toEqual(['start-dev', '--import-realm']);
    const realmMount = (keycloak.volumes ?? []).find((volume) =>
      volume.split(':')[1]?.startsWith('/opt/keycloak/data/import/'),
    );
    expect(realmMount).toBeDefined();
    const [source] = realmMount!.split(':');
    expect(source).toBe(join(repositoryRoot, 'keycloak', 'agent-cloud-realm.json'));
    expect(existsSync(source)).toBe(true);
    expect(keycloak.environment).toMatchObject({
      KC_HTTP_RELATIVE_PATH: '/auth',
      KC_PROXY_HEADERS: 'xforwarded',
      KC_HOSTNAME: `${publicOrigin}/auth`,
      KC_HTTP_ENABLED: 'true',
      KC_HEALTH_ENABLED: 'true',
      KC_DB: 'postgres',
      KC_DB_URL: 'jdbc:postgresql://postgres:5432/keycloak',
      KC_DB_USERNAME: 'keycloak',
      KC_DB_PASSWORD: sample.KEYCLOAK_DB_PASSWORD,
      KC_BOOTSTRAP_ADMIN_PASSWORD: sample.KEYCLOAK_ADMIN_PASSWORD,
      // The realm file's ${VAR:default} placeholders.
      PUBLIC_BASE_URL: publicOrigin,
      AGENT_ADMIN_PASSWORD: sample.AGENT_ADMIN_PASSWORD,
      AGENT_DEMO_PASSWORD: sample.AGENT_DEMO_PASSWORD,
      AGENT_DEMO_PERSON_PASSWORD: sample.AGENT_DEMO_PERSON_PASSWORD,
      AGENT_SERVICE_CLIENT_SECRET: sample.AGENT_SERVICE_CLIENT_SECRET,
    });
    // Health lives on the management port 9000 under the relative path.
    const healthcheck = [keycloak.healthcheck?.test ?? []].flat().join(' ');
    expect(healthcheck).toContain('/dev/tcp/127.0.0.1/9000');
    expect(healthcheck).toContain('GET /auth/health/ready');
  });

  it('publishes only nginx on 8080, never Keycloak’s management port 9000 or the app’s metrics port 9464', () => {
    for (const [name, definition] of Object.entries(config.services)) {
      for (const port of definition.ports ?? []) {
        expect({ name, port: Number(port.target) }).not.toEqual({ name, port: 9000 });
        expect({ name, port: Number(port.published) }).not.toEqual({ name, port: 9000 });
      }
      if (name !== 'nginx')
        expect({ name, ports: definition.ports ?? [] }).toEqual({ name, ports: [] });
      expect({ name, expose: definition.expose ?? [] }).toEqual({ name, expose: [] });
    }
    // The app's metrics port is on the stack's network only.
    expect(service('app').environment).toMatchObject({ METRICS_PORT: '9464' });
    const nginx = service('nginx');
    expect(nginx.ports?.map((port) => [Number(port.published), Number(port.target)])).toEqual([
      [8080, 8080],
    ]);
    expect(nginx.environment?.NGINX_PORT).toBe('8080');
  });

  it('runs the app in production mode on the internal database, trusting the public issuer with keys fetched inside', () => {
    const app = service('app');
    expect(app.build?.context).toBe(repositoryRoot.replace(/\/$/, ''));
    expect(app.environment).toMatchObject({
      NODE_ENV: 'production',
      PUBLIC_BASE_URL: publicOrigin,
      DATABASE_URL: `postgres://agent:${sample.AGENT_DB_PASSWORD}@postgres:5432/agent`,
      AUTH_ISSUER_URL: `${publicOrigin}/auth/realms/agent-cloud`,
      AUTH_JWKS_URL: 'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/certs',
      AGENT_MASTER_KEY: sample.AGENT_MASTER_KEY,
      // Only nginx, on the stack's private network, reaches the app: its X-Forwarded-For is believed.
      TRUST_PROXY: 'uniquelocal',
    });
    expect(app.environment?.PORT).toBe('8080');
  });

  it('gives the app the operator’s certificate authority as files mounted read-only, and none by default', () => {
    const mountOf = (app: ComposeService) =>
      app.volumes?.find((volume) => volume.split(':')[1] === '/etc/agent/ca');
    const app = service('app');
    expect(app.environment).toMatchObject({
      CERTIFICATE_AUTHORITY_CERT_FILE: '/etc/agent/ca/ca.pem',
      CERTIFICATE_AUTHORITY_KEY_FILE: '/etc/agent/ca/ca.key',
    });
    expect(mountOf(app)).toBe('/srv/agent-ca:/etc/agent/ca:ro');
    // With only what is required: blank paths, which the service reads as unset, and the checkout's
    // empty certificate-authority/ mounted.
    const bare = composeConfig(
      Object.fromEntries(requiredVariables.map((name) => [name, sample[name]])),
    );
    expect(bare.status).toBe(0);
    const bareApp = parseYaml(bare.stdout).services.app;
    expect(bareApp.environment).toMatchObject({
      CERTIFICATE_AUTHORITY_CERT_FILE: '',
      CERTIFICATE_AUTHORITY_KEY_FILE: '',
    });
    expect(mountOf(bareApp)).toBe(
      `${join(repositoryRoot, 'certificate-authority')}:/etc/agent/ca:ro`,
    );
    expect(
      readFileSync(join(repositoryRoot, 'certificate-authority', '.gitignore'), 'utf8'),
    ).toMatch(/^\*$/m);
  });

  it('gives postgres the init script that creates both databases and both passwords', () => {
    const postgres = service('postgres');
    expect(postgres.environment).toMatchObject({
      POSTGRES_PASSWORD: sample.POSTGRES_PASSWORD,
      AGENT_DB_PASSWORD: sample.AGENT_DB_PASSWORD,
      KEYCLOAK_DB_PASSWORD: sample.KEYCLOAK_DB_PASSWORD,
    });
    const init = (postgres.volumes ?? []).find((volume) =>
      volume.includes(':/docker-entrypoint-initdb.d/'),
    );
    expect(init?.split(':')[0]).toBe(join(repositoryRoot, 'postgres', '10-databases.sh'));
    const script = readFileSync(join(repositoryRoot, 'postgres', '10-databases.sh'), 'utf8');
    expect(script).toMatch(/CREATE DATABASE agent OWNER agent/);
    expect(script).toMatch(/CREATE DATABASE keycloak OWNER keycloak/);
  });

  it('checks health over TCP in postgres, so the socket-only server of the first initialisation does not count', () => {
    const test = [service('postgres').healthcheck?.test ?? []].flat().join(' ');
    expect(test).toMatch(/pg_isready/);
    expect(test).toMatch(/-h 127\.0\.0\.1/);
  });

  it('mounts the nginx template where the nginx image renders it', () => {
    const nginx = service('nginx');
    const mount = (nginx.volumes ?? []).find((volume) => volume.includes('/etc/nginx/templates/'));
    expect(mount).toBeDefined();
    const [source, target] = mount!.split(':');
    expect(source).toBe(templatePath);
    expect(target).toMatch(/^\/etc\/nginx\/templates\/[^/]+\.conf\.template$/);
    for (const variable of ['NGINX_PORT', 'APP_UPSTREAMS', 'AUTH_UPSTREAMS'])
      expect(nginx.environment?.[variable]).toBeDefined();
    expect(nginx.environment?.APP_UPSTREAMS).toMatch(/server app:8080\b/);
    expect(nginx.environment?.AUTH_UPSTREAMS).toMatch(/server keycloak:8080\b/);
  });

  it('has a healthcheck on every service and starts each only after what it needs is healthy', () => {
    for (const [name, definition] of Object.entries(config.services)) {
      expect({ name, healthcheck: [definition.healthcheck?.test ?? []].flat().length > 0 }).toEqual(
        {
          name,
          healthcheck: true,
        },
      );
    }
    const conditions = Object.fromEntries(
      Object.entries(config.services).map(([name, definition]) => [
        name,
        Object.fromEntries(
          Object.entries(definition.depends_on ?? {}).map(([dependency, { condition }]) => [
            dependency,
            condition,
          ]),
        ),
      ]),
    );
    expect(conditions).toEqual({
      postgres: {},
      keycloak: { postgres: 'service_healthy' },
      app: { postgres: 'service_healthy', keycloak: 'service_healthy' },
      nginx: { app: 'service_healthy', keycloak: 'service_healthy' },
    });
  });

  describe('nginx template', () => {
    const template = readFileSync(templatePath, 'utf8');

    it('renders as envsubst does with only our variables, keeping nginx’s own', () => {
      const values = {
        NGINX_PORT: '8080',
        APP_UPSTREAMS: 'server app:8080 max_fails=1 fail_timeout=10s;',
        AUTH_UPSTREAMS: 'server keycloak:8080;',
        NGINX_RATE: '50r/s',
        NGINX_BURST: '100',
      };
      const rendered = renderTemplate(template, values);
      // What the nginx image runs: envsubst restricted to the defined variables.
      const envsubst = spawnSync(
        'envsubst',
        [templateVariables.map((name) => `\${${name}}`).join(' ')],
        {
          input: template,
          encoding: 'utf8',
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...values },
        },
      );
      expect(envsubst.status).toBe(0);
      expect(rendered).toBe(envsubst.stdout);
      const directives = rendered
        .split('\n')
        .filter((line) => !line.trim().startsWith('#'))
        .join('\n');
      expect(directives).not.toMatch(/\$\{/);
      expect(rendered).toContain('listen 8080;');
      expect(rendered).toContain('server app:8080 max_fails=1 fail_timeout=10s;');
      for (const variable of [
        '$host',
        '$remote_addr',
        '$scheme',
        '$server_port',
        '$http_x_request_id',
        '$request_id',
      ])
        expect(rendered).toContain(variable);
    });

    it('is accepted by nginx -t, rendered with the compose file’s values', () => {
      const nginx = service('nginx');
      const directory = cleanup.tempDir('nginx-t');
      // The container names do not resolve here: the same lines with a loopback address.
      const local = (value: string) => value.replace(/\b(app|keycloak):/g, '127.0.0.1:');
      writeNginxConfig(directory, {
        NGINX_PORT: nginx.environment!.NGINX_PORT,
        APP_UPSTREAMS: local(nginx.environment!.APP_UPSTREAMS),
        AUTH_UPSTREAMS: local(nginx.environment!.AUTH_UPSTREAMS),
        NGINX_RATE: nginx.environment!.NGINX_RATE,
        NGINX_BURST: nginx.environment!.NGINX_BURST,
      });
      const result = testNginxConfig(directory);
      expect(result.output).toMatch(/test is successful/);
      expect(result.status).toBe(0);
    });

    it('is refused by nginx -t when a variable is left unrendered', () => {
      const directory = cleanup.tempDir('nginx-t-bad');
      writeNginxConfig(directory, {
        NGINX_PORT: '8080',
        APP_UPSTREAMS: upstreamServers(['127.0.0.1:8080']),
        AUTH_UPSTREAMS: '${AUTH_UPSTREAMS}',
        NGINX_RATE: '50r/s',
        NGINX_BURST: '100',
      });
      expect(testNginxConfig(directory).status).not.toBe(0);
    });
  });
});
