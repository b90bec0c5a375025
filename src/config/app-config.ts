import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import { resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { type LogLevel } from '../common/logging.js';
import { type OutboundPolicy } from '../common/outbound.js';
import { Settings, settingsCatalogue } from './settings.js';

/** What the service runs with, read once from the environment at boot (api.md, Configuration). */
export interface AppConfig {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  /** Where to listen; undefined: every interface (Node's default). */
  readonly host: string | undefined;
  /** Bounds of the HTTP server against slow and numerous clients. */
  readonly http: HttpServerLimits;
  /** The origin users see, without a trailing slash. */
  readonly publicBaseUrl: string;
  /** Peers whose X-Forwarded-For Express believes (its `trust proxy` list); empty: none. */
  readonly trustProxy: readonly string[];
  /** External PostgreSQL; undefined means an embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** The public issuer to trust; undefined means the embedded issuer on this origin. */
  readonly authIssuerUrl: string;
  readonly authIssuerEmbedded: boolean;
  readonly authJwksUrl: string;
  /** False when AUTH_JWKS_URL is unset: with the embedded issuer, keys are then fetched over loopback. */
  readonly authJwksUrlExplicit: boolean;
  readonly authAudience: string;
  /** Ids of master keys declared lost: values sealed under them do not stop the start. */
  readonly lostMasterKeyIds: readonly string[];
  readonly dataDir: string;
  /** The status purposes an issued credential gets by default (none: empty). */
  readonly credentialStatusDefault: ('revocation' | 'suspension')[];
  /** Operator-added JSON-LD contexts for credentials; undefined: the bundled ones only. */
  readonly credentialContextsDir?: string;
  /** What status lists and did:web documents may be fetched from beyond public https (common/outbound.ts). */
  readonly statusListAllowPrivateTargets: OutboundPolicy['allowPrivate'];
  /** Outbound https trusts these: Node's bundled roots and OUTBOUND_CA_FILE's; undefined: Node's default. */
  readonly outboundCa: OutboundPolicy['ca'];
  readonly webhooks: WebhookSettings;
  /** The management port of `/metrics`; 0: no metrics server; 'any': a free port. */
  readonly metricsPort: number | 'any';
  readonly rateLimits: RateLimitSettings;
  readonly logLevel: LogLevel;
  /** The realm file the embedded issuer reads; undefined means the one shipped in keycloak/. */
  readonly realmFile: string | undefined;
  /**
   * The environment the configuration came from, for the realm file's `${VAR:default}` placeholders,
   * without the master keys: only the secrets module reads those (secrets/master-keys.ts).
   */
  readonly environment: Readonly<Record<string, string | undefined>>;
}

export interface RateLimitSettings {
  /** Requests a minute per token subject; 0: no limit. */
  readonly callerPerMinute: number;
  /** Requests a minute per client address without a verified token; 0: no limit. */
  readonly ipPerMinute: number;
  /** Counters shared by every instance; undefined: in this process's memory. */
  readonly redisUrl: string | undefined;
}

export interface WebhookSettings {
  /** Where deliveries may go beyond public https (common/outbound.ts). */
  readonly allowPrivateTargets: OutboundPolicy['allowPrivate'];
  /** The wait before each retry; a delivery fails after the last. */
  readonly retryDelaysMs: readonly number[];
  readonly disableAfterFailures: number;
  /** Finished deliveries and their events are kept this long. */
  readonly retentionDays: number;
}

export interface HttpServerLimits {
  /** A whole request, body included, must arrive within this (Node's requestTimeout). */
  readonly requestTimeoutMs: number;
  /** Its headers within this (Node's headersTimeout). */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this; longer than nginx's upstream keep-alive. */
  readonly keepAliveTimeoutMs: number;
  /** Connections beyond this many are dropped at once. */
  readonly maxConnections: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** Key material: read by the secrets module from the settings, never carried in AppConfig. */
const masterKeyVariables = new Set(['AGENT_MASTER_KEY', 'AGENT_PREVIOUS_MASTER_KEYS']);

const realmPath = '/auth/realms/agent-cloud';

/** The service's variables as they are set, blank ones counting as unset; throws a ConfigError. */
export function loadSettings(env: Environment = process.env): Settings {
  const given: Record<string, string> = {};
  for (const name of settingsCatalogue().keys()) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') given[name] = value;
  }
  const settings = plainToInstance(Settings, given);
  const [error] = validateSync(settings, { stopAtFirstError: true });
  if (error !== undefined) {
    const message = Object.values(error.constraints ?? {})[0] ?? 'is not valid';
    // The constraint message starts with the variable's name, which ConfigError adds itself.
    throw new ConfigError(error.property, message.replace(new RegExp(`^${error.property} `), ''));
  }
  return settings;
}

/** Validates the environment and returns the typed configuration; throws a ConfigError naming a variable. */
export function loadConfig(env: Environment = process.env): AppConfig {
  const settings = loadSettings(env);
  if (settings.NODE_ENV === 'production') {
    // The embedded parts are for development and tests only (api.md, Configuration).
    for (const variable of ['DATABASE_URL', 'AUTH_ISSUER_URL', 'AGENT_MASTER_KEY'] as const) {
      if (settings[variable] === undefined) {
        throw new ConfigError(variable, 'is required when NODE_ENV=production');
      }
    }
  }
  if (settings.HTTP_HEADERS_TIMEOUT_MS > settings.HTTP_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      'must not be longer than HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  const retryDelaysMs = settings.WEBHOOK_RETRY_DELAYS_MS.split(',').map(Number);
  if (retryDelaysMs.some((delay) => delay > 86_400_000)) {
    throw new ConfigError('WEBHOOK_RETRY_DELAYS_MS', 'each wait must be at most a day (86400000)');
  }
  const publicBaseUrl = new URL(settings.PUBLIC_BASE_URL).origin;
  const embeddedIssuer = settings.AUTH_ISSUER_URL === undefined;
  // Local mode: embedded database and issuer, everything on the developer's machine.
  const localMode = embeddedIssuer && settings.DATABASE_URL === undefined;
  const authIssuerUrl = withoutTrailingSlash(
    settings.AUTH_ISSUER_URL ?? `${publicBaseUrl}${realmPath}`,
  );
  return {
    nodeEnv: settings.NODE_ENV,
    port: settings.PORT,
    // Local mode has well-known development passwords: this machine only, unless HOST opens it.
    host: settings.HOST ?? (embeddedIssuer ? '127.0.0.1' : undefined),
    http: {
      requestTimeoutMs: settings.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: settings.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: settings.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: settings.HTTP_MAX_CONNECTIONS,
    },
    publicBaseUrl,
    trustProxy: trustedProxies(settings.TRUST_PROXY),
    databaseUrl: settings.DATABASE_URL,
    authIssuerUrl,
    authIssuerEmbedded: embeddedIssuer,
    authJwksUrl: withoutTrailingSlash(
      settings.AUTH_JWKS_URL ?? `${authIssuerUrl}/protocol/openid-connect/certs`,
    ),
    authJwksUrlExplicit: settings.AUTH_JWKS_URL !== undefined,
    authAudience: settings.AUTH_AUDIENCE,
    lostMasterKeyIds: (settings.AGENT_LOST_MASTER_KEY_IDS ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== ''),
    dataDir: resolve(settings.DATA_DIR),
    logLevel: settings.LOG_LEVEL,
    realmFile: settings.AUTH_REALM_FILE,
    credentialStatusDefault:
      settings.CREDENTIAL_STATUS_DEFAULT === 'none'
        ? []
        : (settings.CREDENTIAL_STATUS_DEFAULT.split(',') as ('revocation' | 'suspension')[]),
    credentialContextsDir:
      settings.CREDENTIAL_CONTEXTS_DIR === undefined
        ? undefined
        : resolve(settings.CREDENTIAL_CONTEXTS_DIR),
    statusListAllowPrivateTargets: privateTargets(
      settings.STATUS_LIST_ALLOW_PRIVATE_TARGETS,
      localMode,
    ),
    outboundCa:
      settings.OUTBOUND_CA_FILE === undefined ? undefined : outboundCa(settings.OUTBOUND_CA_FILE),
    webhooks: {
      allowPrivateTargets: privateTargets(settings.WEBHOOK_ALLOW_PRIVATE_TARGETS, localMode),
      retryDelaysMs,
      disableAfterFailures: settings.WEBHOOK_DISABLE_AFTER_FAILURES,
      retentionDays: settings.WEBHOOK_RETENTION_DAYS,
    },
    metricsPort: settings.METRICS_PORT === 'any' ? 'any' : Number(settings.METRICS_PORT),
    rateLimits: {
      callerPerMinute: settings.RATE_LIMIT_CALLER_PER_MINUTE,
      ipPerMinute: settings.RATE_LIMIT_IP_PER_MINUTE,
      redisUrl: settings.RATE_LIMIT_REDIS_URL,
    },
    environment: Object.fromEntries(
      Object.entries(env).filter(([name]) => !masterKeyVariables.has(name)),
    ),
  };
}

/**
 * `true` and `false` as set; unset, local mode reaches loopback only (a receiver on the developer's
 * machine), not the other private ranges of the network it happens to be on.
 */
/**
 * Node's bundled roots and every certificate in the PEM file at `path`: a file that cannot be read or
 * holds no certificate stops the start rather than leaving outbound https trusting less than meant.
 */
function outboundCa(path: string): readonly string[] {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError('OUTBOUND_CA_FILE', `cannot be read: ${(error as Error).message}`);
  }
  const certificates =
    pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) {
    throw new ConfigError('OUTBOUND_CA_FILE', `${path} holds no PEM certificate`);
  }
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate);
    } catch (error) {
      throw new ConfigError(
        'OUTBOUND_CA_FILE',
        `${path} holds a certificate that does not parse: ${(error as Error).message}`,
      );
    }
  }
  return [...rootCertificates, ...certificates];
}

function privateTargets(
  value: 'true' | 'false' | undefined,
  localMode: boolean,
): OutboundPolicy['allowPrivate'] {
  if (value === undefined) return localMode ? 'loopback' : false;
  return value === 'true';
}

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Express's `trust proxy` list. Addresses only, never a hop count: a count trusts
 * whichever peer connects, so a client reaching the app directly could name any address it likes.
 */
function trustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0] === 'none') return [];
  for (const entry of entries) {
    const valid =
      proxyNames.has(entry) ||
      (entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry) && isIP(entry) !== 0);
    if (!valid) {
      throw new ConfigError(
        'TRUST_PROXY',
        `'${entry}' is not an address, a CIDR range or one of loopback, linklocal, uniquelocal (or set none)`,
      );
    }
  }
  return entries;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return isIP(entry.split('/')[0]) !== 0;
  } catch {
    return false;
  }
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
