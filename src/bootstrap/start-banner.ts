import { join } from 'node:path';
import { type Settings } from '../config/settings.js';

/** Where the running service is, as the start announces it. */
export interface StartedService {
  readonly settings: Settings;
  /** The public port the service listens on. */
  readonly port: number;
  /** The management port serving /metrics, when it is open. */
  readonly metricsPort: number | undefined;
  readonly tracing: boolean;
}

/**
 * Local mode, where the browser talks to the service itself: a PUBLIC_BASE_URL that names this machine
 * on another port makes every link and token lead elsewhere. Elsewhere a proxy in front is the rule.
 */
export function publicOriginMismatch(settings: Settings, port: number): string | undefined {
  if (!settings.localMode) return undefined;
  const origin = new URL(settings.PUBLIC_BASE_URL);
  const publicPort = Number(origin.port || (origin.protocol === 'https:' ? 443 : 80));
  const thisMachine =
    origin.hostname === 'localhost' ||
    origin.hostname === '[::1]' ||
    origin.hostname.startsWith('127.');
  if (!thisMachine || publicPort === port) return undefined;
  return (
    `PUBLIC_BASE_URL is ${settings.PUBLIC_BASE_URL} but the service listens on port ${port} ` +
    `(PORT=${settings.PORT}): tokens, discovery, the API explorer's login and wallet links name port ` +
    `${publicPort}. ` +
    (settings.PORT === 0
      ? 'PORT=0 takes a free port, unknown until it is open: give PORT a number for working links.'
      : 'Unset PUBLIC_BASE_URL (it then follows PORT), or make the two agree.')
  );
}

/** The links of a started service, as fields of the one `service.started` log record. */
export function startRecord(started: StartedService): Record<string, unknown> {
  const { settings } = started;
  const base = settings.PUBLIC_BASE_URL;
  return {
    msg: `Ready: API explorer at ${base}/ctrl/swagger-ui/`,
    event: 'service.started',
    port: started.port,
    publicBaseUrl: base,
    apiExplorer: `${base}/ctrl/swagger-ui/`,
    openApiDocument: `${base}/ctrl/v3/api-docs`,
    issuer: settings.authIssuerUrl,
    tokenEndpoint: `${settings.authIssuerUrl}/protocol/openid-connect/token`,
    metricsPort: started.metricsPort,
    tracing: started.tracing,
  };
}

/**
 * Local mode's banner: human lines for the developer at the terminal, written to stderr after the log
 * records (stdout stays JSON lines). The passwords are the realm file's defaults unless the variables
 * that replace them are set: it never claims admin/admin then.
 */
export function localModeBanner(started: StartedService): string {
  const { settings } = started;
  const base = settings.PUBLIC_BASE_URL;
  const password = (variable: string, fallback: string) =>
    settings.environment[variable] === undefined ? fallback : `(${variable})`;
  const demoPassword = password('AGENT_DEMO_PASSWORD', 'demo');
  const rows: [string, string][] = [
    [
      'API explorer',
      `${base}/ctrl/swagger-ui/   (Authorize, then log in as demo / ${demoPassword})`,
    ],
    ['OpenAPI', `${base}/ctrl/v3/api-docs`],
    ['Issuer', `${settings.authIssuerUrl}   (client_id agent-client)`],
    [
      'Users',
      `admin / ${password('AGENT_ADMIN_PASSWORD', 'admin')} (agent-admin, every tenant), ` +
        `demo / ${demoPassword} (agent-user, tenant "demo")`,
    ],
    [
      'Data',
      `${settings.DATA_DIR}   (PostgreSQL in ${join(settings.DATA_DIR, 'postgres')}, the master key, the issuer's keys)`,
    ],
  ];
  if (started.metricsPort !== undefined)
    rows.push(['Metrics', `port ${started.metricsPort}, /metrics (management port, not public)`]);
  if (started.tracing) rows.push(['Tracing', 'on, exporting spans over OTLP (OTEL_* variables)']);
  rows.push(
    ['Logs', 'JSON lines on stdout; LOG_LEVEL=debug adds every route and module'],
    ['Stop', 'Ctrl-C (the data stays)'],
  );
  const width = Math.max(...rows.map(([label]) => label.length));
  return [
    '',
    `  Agent service ready on port ${started.port} (local mode: development only)`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`),
    '',
    '',
  ].join('\n');
}
