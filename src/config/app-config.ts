import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type LogLevel } from '../common/logging.js';

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
  /** External PostgreSQL; undefined means an embedded PostgreSQL under `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** The public issuer to trust; undefined means the embedded issuer on this origin. */
  readonly authIssuerUrl: string;
  readonly authIssuerEmbedded: boolean;
  readonly authJwksUrl: string;
  /** False when AUTH_JWKS_URL is unset: with the embedded issuer, keys are then fetched over loopback. */
  readonly authJwksUrlExplicit: boolean;
  readonly authAudience: string;
  /** 32 bytes that encrypt the tenants' private keys. */
  readonly masterKey: Buffer;
  /** Where the master key came from, for the start-up log (never the key itself). */
  readonly masterKeySource: 'environment' | 'data-dir';
  readonly dataDir: string;
  readonly logLevel: LogLevel;
  /** The realm file the embedded issuer reads; undefined means the one shipped in keycloak/. */
  readonly realmFile: string | undefined;
  /** The environment the configuration came from, for the realm file's `${VAR:default}` placeholders. */
  readonly environment: Readonly<Record<string, string | undefined>>;
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

type Environment = Record<string, string | undefined>;

const realmPath = '/auth/realms/agent-cloud';

/**
 * Validates the environment and returns the typed configuration. Throws a ConfigError that names the
 * offending variable. In local mode it creates `DATA_DIR` and, once, the master key file inside it.
 */
export function loadConfig(env: Environment = process.env): AppConfig {
  const nodeEnv = readNodeEnv(env);
  const port = readPort(env);
  const http: HttpServerLimits = {
    requestTimeoutMs: readWholeNumber(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1),
    headersTimeoutMs: readWholeNumber(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1),
    keepAliveTimeoutMs: readWholeNumber(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 65_000, 1),
    maxConnections: readWholeNumber(env, 'HTTP_MAX_CONNECTIONS', 1_000, 1),
  };
  if (http.headersTimeoutMs > http.requestTimeoutMs) {
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      'must not be longer than HTTP_REQUEST_TIMEOUT_MS',
    );
  }
  const publicBaseUrl = readUrl(env, 'PUBLIC_BASE_URL', 'http://localhost:8080', {
    originOnly: true,
  });
  const databaseUrl = readOptional(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) validateDatabaseUrl(databaseUrl);
  const issuerFromEnv = readOptional(env, 'AUTH_ISSUER_URL');
  const authIssuerUrl =
    issuerFromEnv === undefined
      ? `${publicBaseUrl}${realmPath}`
      : readUrl(env, 'AUTH_ISSUER_URL', undefined, { originOnly: false });
  const authJwksUrl = readUrl(
    env,
    'AUTH_JWKS_URL',
    `${authIssuerUrl}/protocol/openid-connect/certs`,
    {
      originOnly: false,
    },
  );
  const authAudience = readOptional(env, 'AUTH_AUDIENCE') ?? 'agent-api';
  if (!/^[\x21-\x7e]{1,255}$/.test(authAudience)) {
    throw new ConfigError('AUTH_AUDIENCE', 'must be 1-255 printable characters without spaces');
  }
  const masterKeyFromEnv = readOptional(env, 'AGENT_MASTER_KEY');

  if (nodeEnv === 'production') {
    // The embedded parts are for development and tests only (api.md, Configuration).
    for (const [variable, value] of [
      ['DATABASE_URL', databaseUrl],
      ['AUTH_ISSUER_URL', issuerFromEnv],
      ['AGENT_MASTER_KEY', masterKeyFromEnv],
    ] as const) {
      if (value === undefined) {
        throw new ConfigError(variable, 'is required when NODE_ENV=production');
      }
    }
  }

  const dataDir = resolve(readOptional(env, 'DATA_DIR') ?? '.data');
  let masterKey: Buffer;
  let masterKeySource: AppConfig['masterKeySource'];
  if (masterKeyFromEnv !== undefined) {
    masterKey = decodeMasterKey(masterKeyFromEnv, 'AGENT_MASTER_KEY');
    masterKeySource = 'environment';
  } else {
    masterKey = loadOrCreateMasterKeyFile(dataDir);
    masterKeySource = 'data-dir';
  }

  return {
    nodeEnv,
    port,
    // Local mode has well-known development passwords: reachable from this machine only, unless HOST opens it.
    host: readOptional(env, 'HOST') ?? (issuerFromEnv === undefined ? '127.0.0.1' : undefined),
    http,
    publicBaseUrl,
    databaseUrl,
    authIssuerUrl,
    authIssuerEmbedded: issuerFromEnv === undefined,
    authJwksUrl,
    authJwksUrlExplicit: readOptional(env, 'AUTH_JWKS_URL') !== undefined,
    authAudience,
    masterKey,
    masterKeySource,
    dataDir,
    logLevel: readLogLevel(env),
    realmFile: readOptional(env, 'AUTH_REALM_FILE'),
    environment: { ...env },
  };
}

function readOptional(env: Environment, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function readLogLevel(env: Environment): LogLevel {
  const value = readOptional(env, 'LOG_LEVEL') ?? 'info';
  if (!(logLevels as readonly string[]).includes(value)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${logLevels.join(', ')}, not '${value}'`);
  }
  return value as LogLevel;
}

function readNodeEnv(env: Environment): AppConfig['nodeEnv'] {
  const value = readOptional(env, 'NODE_ENV') ?? 'development';
  if (value !== 'development' && value !== 'production' && value !== 'test') {
    throw new ConfigError('NODE_ENV', `must be development, production or test, not '${value}'`);
  }
  return value;
}

function readPort(env: Environment): number {
  const raw = readOptional(env, 'PORT') ?? '8080';
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new ConfigError('PORT', `must be a whole number from 0 to 65535, not '${raw}'`);
  }
  return Number(raw);
}

function readWholeNumber(
  env: Environment,
  name: string,
  fallback: number,
  minimum: number,
): number {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < minimum) {
    throw new ConfigError(name, `must be a whole number of at least ${minimum}, not '${raw}'`);
  }
  return Number(raw);
}

function readUrl(
  env: Environment,
  name: string,
  fallback: string | undefined,
  options: { originOnly: boolean },
): string {
  const raw = readOptional(env, name) ?? fallback;
  if (raw === undefined) throw new ConfigError(name, 'is required');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL: '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, 'must be an http or https URL');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(name, 'must not carry credentials, a query or a fragment');
  }
  if (options.originOnly && url.pathname !== '/') {
    throw new ConfigError(
      name,
      `must be an origin without a path, such as 'https://agent.example.com'`,
    );
  }
  return options.originOnly ? url.origin : raw.replace(/\/+$/, '');
}

function validateDatabaseUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // The value may hold a password: never echo it.
    throw new ConfigError(
      'DATABASE_URL',
      'is not a valid URL (expected postgres://user:password@host:port/database)',
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', 'must start with postgres:// or postgresql://');
  }
}

export function decodeMasterKey(encoded: string, variable: string): Buffer {
  const key = /^[A-Za-z0-9+/]{43}=?$/.test(encoded)
    ? Buffer.from(encoded, 'base64')
    : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError(
      variable,
      "must be 32 random bytes in base64 (make one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\")",
    );
  }
  return key;
}

const masterKeyFileName = 'master.key';

function loadOrCreateMasterKeyFile(dataDir: string): Buffer {
  const file = join(dataDir, masterKeyFileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      // 'wx' fails if another process created the file in the meantime; then we read theirs.
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  chmodSync(file, 0o600);
  return decodeMasterKey(readFileSync(file, 'utf8').trim(), `${file} (the local master key)`);
}
