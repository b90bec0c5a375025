import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  Matches,
  Max,
  Min,
  registerDecorator,
  type ValidationOptions,
} from 'class-validator';
import { logLevels, type LogLevel } from '../common/logging.js';

/** What the documentation says of a variable: its meaning, its default, whether its value is a secret. */
export interface SettingInfo {
  description: string;
  /** The default, as the docs print it (`unset` when there is none, or a rule that derives it). */
  default: string;
  secret?: boolean;
}

const catalogue = new Map<string, SettingInfo>();

/** Registers a variable in the catalogue that the configuration docs are checked against. */
function Setting(info: SettingInfo): PropertyDecorator {
  return (_target, property) => {
    catalogue.set(String(property), info);
  };
}

/** Every variable the service reads, with its documentation, in declaration order. */
export function settingsCatalogue(): ReadonlyMap<string, SettingInfo> {
  return catalogue;
}

/**
 * A whole number from `min` to `max` (or at least `min`), converted from the variable's text and refused
 * with one message that names the range (or the unit).
 */
function WholeNumber(min: number, max?: number, unit?: string): PropertyDecorator {
  const message =
    max !== undefined
      ? `$property must be a whole number from ${min} to ${max}`
      : unit !== undefined
        ? `$property must be a whole number of ${unit}`
        : `$property must be a whole number of at least ${min}`;
  return (target, property) => {
    Type(() => Number)(target, property);
    IsInt({ message })(target, property);
    Min(min, { message })(target, property);
    if (max !== undefined) Max(max, { message })(target, property);
  };
}

/** An http(s) URL without credentials, query or fragment; with `origin`, without a path either. */
function IsHttpUrl(shape: { origin: boolean }, options?: ValidationOptions): PropertyDecorator {
  return (target, property) =>
    registerDecorator({
      name: 'isHttpUrl',
      target: target.constructor,
      propertyName: String(property),
      options: {
        message: shape.origin
          ? `$property must be an http(s) origin without a path, such as 'https://agent.example.com'`
          : '$property must be an http(s) URL without credentials, a query or a fragment',
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string' || !URL.canParse(value)) return false;
          const url = new URL(value);
          return (
            (url.protocol === 'http:' || url.protocol === 'https:') &&
            url.search === '' &&
            url.hash === '' &&
            url.username === '' &&
            url.password === '' &&
            (!shape.origin || url.pathname === '/')
          );
        },
      },
    });
}

/**
 * The environment the service runs with, validated once at boot (loadConfig). Values are strings as
 * the environment has them; numbers are converted before validation. Defaults that depend on other
 * variables are applied in app-config.ts and documented here.
 */
export class Settings {
  @Setting({
    description:
      '`development`, `production` or `test`; `production` refuses to start without ' +
      '`DATABASE_URL`, `AUTH_ISSUER_URL` and `AGENT_MASTER_KEY`',
    default: '`development`',
  })
  @IsIn(['development', 'production', 'test'], {
    message: '$property must be development, production or test',
  })
  NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Setting({ description: 'HTTP port of the app', default: '`8080`' })
  @WholeNumber(0, 65535)
  PORT = 8080;

  @Setting({
    description:
      'where to listen; local mode has development passwords, so it stays on loopback unless this opens it',
    default: 'local mode: `127.0.0.1`; else every interface',
  })
  @IsOptional()
  @Matches(/^[0-9A-Za-z.:_-]{1,255}$/, { message: '$property must be a host name or address' })
  HOST?: string;

  @Setting({
    description: 'the origin users see; the issuer and Swagger URLs derive from it',
    default: '`http://localhost:8080`',
  })
  @IsHttpUrl({ origin: true })
  PUBLIC_BASE_URL = 'http://localhost:8080';

  @Setting({
    description:
      "the peers whose `X-Forwarded-For` names the client's address: `none`, or comma-separated addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`",
    default: '`none`: the app is the origin',
  })
  @Matches(/^[0-9A-Za-z.:/, ]{1,1000}$/, {
    message:
      '$property must be none, or comma-separated addresses, CIDR ranges or loopback, linklocal, uniquelocal',
  })
  TRUST_PROXY = 'none';

  @Setting({
    description: 'external PostgreSQL (`postgres://user:password@host:port/database`)',
    default: 'unset: embedded PostgreSQL under `DATA_DIR`',
    secret: true,
  })
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/[^\s]+$/, {
    message: '$property must be a URL that starts with postgres:// or postgresql://',
  })
  DATABASE_URL?: string;

  @Setting({
    description: 'the public token issuer to trust, exactly as tokens name it in `iss`',
    default: 'unset: the embedded issuer at `{PUBLIC_BASE_URL}/auth/realms/agent-cloud`',
  })
  @IsOptional()
  @IsHttpUrl({ origin: false })
  AUTH_ISSUER_URL?: string;

  @Setting({
    description: "where to fetch the issuer's signing keys; may be an internal URL",
    default: '`{AUTH_ISSUER_URL}/protocol/openid-connect/certs`',
  })
  @IsOptional()
  @IsHttpUrl({ origin: false })
  AUTH_JWKS_URL?: string;

  @Setting({ description: 'the audience access tokens must name (`aud`)', default: '`agent-api`' })
  @Matches(/^[\x21-\x7e]{1,255}$/, {
    message: '$property must be 1-255 printable characters without spaces',
  })
  AUTH_AUDIENCE = 'agent-api';

  @Setting({
    description: "base64 of 32 random bytes that encrypt the tenants' private keys",
    default: 'local mode: generated once into `DATA_DIR/master.key` (mode 0600)',
    secret: true,
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=?$/, {
    message:
      "$property must be 32 random bytes in base64 (make one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\")",
  })
  AGENT_MASTER_KEY?: string;

  @Setting({
    description:
      'earlier master keys, base64, comma-separated, that open what they sealed but seal nothing; empty once `npm run keys:rewrap` has re-sealed everything',
    default: 'unset: none',
    secret: true,
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=?( *, *[A-Za-z0-9+/]{43}=?)*$/, {
    message: '$property must be a comma-separated list of keys, each 32 random bytes in base64',
  })
  AGENT_PREVIOUS_MASTER_KEYS?: string;

  @Setting({
    description:
      'ids of master keys lost for good, comma-separated (the 32 hex characters the refusal names): the service starts although values are sealed under them, and their tenants cannot sign; without it, such values stop the start',
    default: 'unset: none',
  })
  @IsOptional()
  @Matches(/^[0-9a-f]{32}( *, *[0-9a-f]{32})*$/, {
    message: '$property must be a comma-separated list of master key ids, each 32 hex characters',
  })
  AGENT_LOST_MASTER_KEY_IDS?: string;

  @Setting({
    description: "local-mode state: the embedded PostgreSQL, the master key, the issuer's keys",
    default: '`.data`',
  })
  DATA_DIR = '.data';

  @Setting({
    description: 'the realm file the embedded issuer reads',
    default: '`keycloak/agent-cloud-realm.json`',
  })
  @IsOptional()
  AUTH_REALM_FILE?: string;

  @Setting({
    description:
      'a folder of JSON-LD contexts credentials may use besides the bundled ones (`{"url": ..., "@context": ...}` per file)',
    default: 'unset: the bundled contexts only',
  })
  @IsOptional()
  CREDENTIAL_CONTEXTS_DIR?: string;

  @Setting({
    description:
      'the status entries an issued credential gets unless the request says otherwise: `revocation`, `suspension`, `revocation,suspension` or `none`',
    default: '`revocation`',
  })
  @IsIn(['revocation', 'suspension', 'revocation,suspension', 'suspension,revocation', 'none'], {
    message: '$property must be revocation, suspension, revocation,suspension or none',
  })
  CREDENTIAL_STATUS_DEFAULT = 'revocation';

  @Setting({
    description:
      '`true` lets credential verification fetch status lists from loopback and private addresses and over plain http, and did:web documents (always https) from loopback and private addresses (not link-local, metadata or its own ports); development only',
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: '$property must be true or false' })
  STATUS_LIST_ALLOW_PRIVATE_TARGETS?: 'true' | 'false';

  @Setting({
    description:
      "a PEM file of certificate authorities outbound https (status lists, did:web documents, webhooks) trusts besides Node's bundled roots: a private or test CA",
    default: "unset: Node's bundled roots only",
  })
  @IsOptional()
  OUTBOUND_CA_FILE?: string;

  @Setting({
    description:
      '`true` lets webhooks go to loopback and private addresses and over plain http (not link-local, metadata or its own ports); development only',
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @IsOptional()
  @IsIn(['true', 'false'], { message: '$property must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_TARGETS?: 'true' | 'false';

  @Setting({
    description:
      'the waits before each retry of a failed webhook delivery, in milliseconds, comma-separated (at most 20, each at most a day); the delivery fails after the last',
    default: '`5000,300000,1800000,7200000,18000000,36000000,36000000` (Standard Webhooks)',
  })
  @Matches(/^\d{1,8}(,\d{1,8}){0,19}$/, {
    message: '$property must be up to 20 comma-separated whole numbers of milliseconds',
  })
  WEBHOOK_RETRY_DELAYS_MS = '5000,300000,1800000,7200000,18000000,36000000,36000000';

  @Setting({
    description: 'a subscription whose deliveries failed this many times in a row is disabled',
    default: '`100`',
  })
  @WholeNumber(1, 100_000)
  WEBHOOK_DISABLE_AFTER_FAILURES = 100;

  @Setting({
    description:
      'events older than this many days are removed with their deliveries and attempt log, once none is pending',
    default: '`7`',
  })
  @WholeNumber(1, 3650)
  WEBHOOK_RETENTION_DAYS = 7;

  @Setting({
    description:
      'the management port that serves Prometheus metrics at `/metrics` (never routed by nginx); `0` turns it off; `any` takes a free port (tests, instances side by side) and logs it',
    default: '`9464`',
  })
  @Matches(
    /^(any|0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/,
    {
      message: '$property must be a whole number from 0 to 65535, or any',
    },
  )
  METRICS_PORT = '9464';

  @Setting({
    description:
      'requests a minute that one caller (token subject) may make; beyond it, 429 `RATE_LIMITED`; `0` turns the limit off',
    default: '`6000`',
  })
  @WholeNumber(0, 100_000_000)
  RATE_LIMIT_CALLER_PER_MINUTE = 6_000;

  @Setting({
    description:
      'requests a minute from one client address without a verified token (token endpoint, login form, public status lists, bad tokens); `0` turns the limit off',
    default: '`600`',
  })
  @WholeNumber(0, 100_000_000)
  RATE_LIMIT_IP_PER_MINUTE = 600;

  @Setting({
    description:
      'Redis that keeps the rate-limit counters, so that the limits hold across instances (`redis://[:password@]host:port[/db]`)',
    default: 'unset: each instance counts on its own, in memory',
    secret: true,
  })
  @IsOptional()
  @Matches(/^rediss?:\/\/[^\s]+$/, {
    message: '$property must be a URL that starts with redis:// or rediss://',
  })
  RATE_LIMIT_REDIS_URL?: string;

  @Setting({ description: `log level: ${logLevels.join(', ')}`, default: '`info`' })
  @IsIn(logLevels, { message: `$property must be one of ${logLevels.join(', ')}` })
  LOG_LEVEL: LogLevel = 'info';

  @Setting({
    description:
      'a whole request, body included, must arrive within this, else 408 `REQUEST_TIMEOUT`',
    default: '`30000`',
  })
  @WholeNumber(1, undefined, 'milliseconds')
  HTTP_REQUEST_TIMEOUT_MS = 30_000;

  @Setting({ description: 'its headers within this, else 408', default: '`10000`' })
  @WholeNumber(1, undefined, 'milliseconds')
  HTTP_HEADERS_TIMEOUT_MS = 10_000;

  @Setting({
    description:
      "an idle keep-alive connection is closed after this; keep it above a proxy's upstream keep-alive (nginx: 60 s)",
    default: '`65000`',
  })
  @WholeNumber(1, undefined, 'milliseconds')
  HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;

  @Setting({ description: 'connections beyond this many are dropped at once', default: '`1000`' })
  @WholeNumber(1)
  HTTP_MAX_CONNECTIONS = 1_000;
}
