import 'reflect-metadata';
import { resolve } from 'node:path';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { logLevels, type LogLevel } from '../common/logging.js';
import { type OutboundPolicy } from '../common/outbound.js';
import { outboundCa, retryDelays, trustedProxies } from './parsers.js';
import {
  commaList,
  httpUrl,
  Parsed,
  refuse,
  type Refusal,
  Setting,
  WholeNumber,
} from './setting-decorators.js';

export { settingsCatalogue, type SettingInfo } from './setting-decorators.js';

/** The environment variables as the process has them. */
export type Environment = Readonly<Record<string, string | undefined>>;

const realmPath = '/auth/realms/agent-cloud';

type StatusPurpose = 'revocation' | 'suspension';

const statusPurposes = new Map<string, readonly StatusPurpose[]>([
  ['revocation', ['revocation']],
  ['suspension', ['suspension']],
  ['revocation,suspension', ['revocation', 'suspension']],
  ['suspension,revocation', ['suspension', 'revocation']],
  ['none', []],
]);

function trueOrFalse(text: string): boolean | Refusal {
  return text === 'true' || text === 'false'
    ? text === 'true'
    : refuse('$property must be true or false');
}

/**
 * What the service runs with: each environment variable once, with its documentation, its validation
 * and its typed value, read once at boot (load-settings.ts) and injected as is (the class is the token).
 * The values that follow from several variables are the getters at the end. The master keys are not
 * here: only the secrets module reads them (MasterKeySettings below, secrets/master-keys.ts).
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
  readonly NODE_ENV: 'development' | 'production' | 'test' = 'development';

  @Setting({ description: 'HTTP port of the app', default: '`8080`' })
  @WholeNumber(0, 65535)
  readonly PORT: number = 8080;

  @Setting({
    description:
      'where to listen; local mode has development passwords, so it stays on loopback unless this opens it',
    default: 'local mode: `127.0.0.1`; else every interface',
  })
  @IsOptional()
  @Matches(/^[0-9A-Za-z.:_-]{1,255}$/, { message: '$property must be a host name or address' })
  readonly HOST?: string;

  @Setting({
    description:
      'the origin users see; every public URL derives from it: the issuer (`iss`), discovery, Swagger, status lists, wallet offers and requests; in local mode, one that names this machine on another port than `PORT` is warned of at start',
    default: '`http://localhost:{PORT}`: where the service listens',
  })
  @Parsed(httpUrl({ origin: true }))
  /** Without a trailing slash; unset: http://localhost:{PORT} (load-settings.ts), so another port just works. */
  readonly PUBLIC_BASE_URL: string = 'http://localhost:8080';

  @Setting({
    description:
      "the peers whose `X-Forwarded-For` names the client's address: `none`, or comma-separated addresses, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`",
    default: '`none`: the app is the origin',
  })
  @Parsed(trustedProxies)
  /** Express's `trust proxy` list; empty: none. */
  readonly TRUST_PROXY: readonly string[] = [];

  @Setting({
    description: 'external PostgreSQL (`postgres://user:password@host:port/database`)',
    default: 'unset: embedded PostgreSQL under `DATA_DIR`',
    secret: true,
  })
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/[^\s]+$/, {
    message: '$property must be a URL that starts with postgres:// or postgresql://',
  })
  readonly DATABASE_URL?: string;

  @Setting({
    description: 'the public token issuer to trust, exactly as tokens name it in `iss`',
    default: 'unset: the embedded issuer at `{PUBLIC_BASE_URL}/auth/realms/agent-cloud`',
  })
  @Parsed(httpUrl({ origin: false }))
  /** Without a trailing slash; unset: the embedded issuer (authIssuerUrl). */
  readonly AUTH_ISSUER_URL?: string;

  @Setting({
    description: "where to fetch the issuer's signing keys; may be an internal URL",
    default: '`{AUTH_ISSUER_URL}/protocol/openid-connect/certs`',
  })
  @Parsed(httpUrl({ origin: false }))
  /** Without a trailing slash; unset: the issuer's (authJwksUrl), over loopback when embedded. */
  readonly AUTH_JWKS_URL?: string;

  @Setting({ description: 'the audience access tokens must name (`aud`)', default: '`agent-api`' })
  @Matches(/^[\x21-\x7e]{1,255}$/, {
    message: '$property must be 1-255 printable characters without spaces',
  })
  readonly AUTH_AUDIENCE: string = 'agent-api';

  @Setting({
    description:
      'ids of master keys lost for good, comma-separated (the 32 hex characters the refusal names): the service starts although values are sealed under them, and their tenants cannot sign; without it, such values stop the start',
    default: 'unset: none',
  })
  @Parsed(
    commaList(
      /^[0-9a-f]{32}$/,
      '$property must be a comma-separated list of master key ids, each 32 hex characters',
    ),
  )
  /** Values sealed under these do not stop the start. */
  readonly AGENT_LOST_MASTER_KEY_IDS: readonly string[] = [];

  @Setting({
    description: "local-mode state: the embedded PostgreSQL, the master key, the issuer's keys",
    default: '`.data`',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path. */
  readonly DATA_DIR: string = resolve('.data');

  @Setting({
    description: 'the realm file the embedded issuer reads',
    default: '`keycloak/agent-cloud-realm.json`',
  })
  readonly AUTH_REALM_FILE?: string;

  @Setting({
    description:
      'a folder of JSON-LD contexts credentials may use besides the bundled ones (`{"url": ..., "@context": ...}` per file)',
    default: 'unset: the bundled contexts only',
  })
  @Transform(({ value }: { value: string }) => resolve(value), { toClassOnly: true })
  /** An absolute path; unset: the bundled contexts only. */
  readonly CREDENTIAL_CONTEXTS_DIR?: string;

  @Setting({
    description:
      'the status entries an issued credential gets unless the request says otherwise: `revocation`, `suspension`, `revocation,suspension` or `none`',
    default: '`revocation`',
  })
  @Parsed(
    (text) =>
      statusPurposes.get(text) ??
      refuse('$property must be revocation, suspension, revocation,suspension or none'),
  )
  /** The status purposes an issued credential gets by default (none: empty). */
  readonly CREDENTIAL_STATUS_DEFAULT: readonly StatusPurpose[] = ['revocation'];

  @Setting({
    description:
      '`true` lets credential verification fetch status lists from loopback and private addresses and over plain http, and did:web documents (always https) from loopback and private addresses (not link-local, metadata or its own ports); development only',
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @Parsed(trueOrFalse)
  /** Unset: statusListAllowPrivateTargets applies local mode's default. */
  readonly STATUS_LIST_ALLOW_PRIVATE_TARGETS?: boolean;

  @Setting({
    description:
      "a PEM file of certificate authorities outbound https (status lists, did:web documents, webhooks) trusts besides Node's bundled roots: a private or test CA",
    default: "unset: Node's bundled roots only",
  })
  @Parsed(outboundCa)
  /** The file read: Node's bundled roots and its certificates, which outbound https trusts; unset: Node's default. */
  readonly OUTBOUND_CA_FILE?: readonly string[];

  @Setting({
    description:
      '`true` lets webhooks go to loopback and private addresses and over plain http (not link-local, metadata or its own ports); development only',
    default: 'local mode (embedded database and issuer): loopback only; else `false`',
  })
  @Parsed(trueOrFalse)
  /** Unset: webhookAllowPrivateTargets applies local mode's default. */
  readonly WEBHOOK_ALLOW_PRIVATE_TARGETS?: boolean;

  @Setting({
    description:
      'the waits before each retry of a failed webhook delivery, in milliseconds, comma-separated (at most 20, each at most a day); the delivery fails after the last',
    default: '`5000,300000,1800000,7200000,18000000,36000000,36000000` (Standard Webhooks)',
  })
  @Parsed(retryDelays)
  readonly WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
    5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000,
  ];

  @Setting({
    description: 'a subscription whose deliveries failed this many times in a row is disabled',
    default: '`100`',
  })
  @WholeNumber(1, 100_000)
  readonly WEBHOOK_DISABLE_AFTER_FAILURES: number = 100;

  @Setting({
    description:
      'events older than this many days are removed with their deliveries and attempt log, once none is pending',
    default: '`7`',
  })
  @WholeNumber(1, 3650)
  readonly WEBHOOK_RETENTION_DAYS: number = 7;

  @Setting({
    description:
      'the claims a wallet disclosed to an OpenID4VP presentation request are erased this many seconds after the request ended (its outcome stays)',
    default: '`86400`',
  })
  @WholeNumber(0, 31_536_000)
  readonly OID4VP_CLAIMS_RETENTION_SECONDS: number = 86_400;

  @Setting({
    description:
      'the management port that serves Prometheus metrics at `/metrics` (never routed by nginx); `0` turns it off; `any` takes a free port (tests, instances side by side) and logs it',
    default: '`9464`',
  })
  @Parsed((text) =>
    /^(any|0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/.test(
      text,
    )
      ? text === 'any'
        ? 'any'
        : Number(text)
      : refuse('$property must be a whole number from 0 to 65535, or any'),
  )
  readonly METRICS_PORT: number | 'any' = 9464;

  @Setting({
    description:
      'requests a minute that one caller (token subject) may make; beyond it, 429 `RATE_LIMITED`; `0` turns the limit off',
    default: '`6000`',
  })
  @WholeNumber(0, 100_000_000)
  readonly RATE_LIMIT_CALLER_PER_MINUTE: number = 6_000;

  @Setting({
    description:
      'requests a minute from one client address without a verified token (token endpoint, login form, public status lists, bad tokens); `0` turns the limit off',
    default: '`600`',
  })
  @WholeNumber(0, 100_000_000)
  readonly RATE_LIMIT_IP_PER_MINUTE: number = 600;

  @Setting({
    description:
      'requests one caller may make within any one second, on top of its minute: a burst beyond it is refused at once with 429; `0` turns it off',
    default: '`200`',
  })
  @WholeNumber(0, 100_000_000)
  readonly RATE_LIMIT_CALLER_BURST: number = 200;

  @Setting({
    description:
      'requests one client address without a verified token may make within any one second, on top of its minute; `0` turns it off',
    default: '`30`',
  })
  @WholeNumber(0, 100_000_000)
  readonly RATE_LIMIT_IP_BURST: number = 30;

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
  readonly RATE_LIMIT_REDIS_URL?: string;

  @Setting({
    description:
      "requests to the token endpoints (the embedded issuer's and each tenant's OpenID4VCI `{issuer}/token`) in flight at once; beyond it, 503 with Retry-After at once; `0`: no bound",
    default: '`8`',
  })
  @WholeNumber(0, 1_000_000)
  readonly HTTP_MAX_IN_FLIGHT_TOKEN: number = 8;

  @Setting({
    description:
      "requests to the other wallet-facing routes (OpenID4VCI and OpenID4VP under `/ctrl/oid4vci/` and `/ctrl/oid4vp/`, the issuers' metadata) in flight at once; beyond it, 503 with Retry-After at once; `0`: no bound",
    default: '`32`',
  })
  @WholeNumber(0, 1_000_000)
  readonly HTTP_MAX_IN_FLIGHT_WALLET: number = 32;

  @Setting({
    description:
      'every other request (the API, the login pages, the documentation) in flight at once, probes excepted; beyond it, 503 with Retry-After at once; `0`: no bound',
    default: '`64`',
  })
  @WholeNumber(0, 1_000_000)
  readonly HTTP_MAX_IN_FLIGHT_API: number = 64;

  @Setting({ description: "database connections the app's pool opens at most", default: '`10`' })
  @WholeNumber(1, 1_000)
  readonly DATABASE_POOL_SIZE: number = 10;

  @Setting({
    description:
      'a request waits this long at most for a database connection (or a new one to open), else 503 with Retry-After; keep it well below the time a client waits',
    default: '`1500`',
  })
  @WholeNumber(1, 60_000, 'milliseconds')
  readonly DATABASE_POOL_ACQUIRE_TIMEOUT_MS: number = 1_500;

  @Setting({ description: `log level: ${logLevels.join(', ')}`, default: '`info`' })
  @IsIn(logLevels, { message: `$property must be one of ${logLevels.join(', ')}` })
  readonly LOG_LEVEL: LogLevel = 'info';

  @Setting({
    description:
      'a whole request, body included, must arrive within this, else 408 `REQUEST_TIMEOUT`',
    default: '`30000`',
  })
  @WholeNumber(1, undefined, 'milliseconds')
  readonly HTTP_REQUEST_TIMEOUT_MS: number = 30_000;

  @Setting({ description: 'its headers within this, else 408', default: '`10000`' })
  @WholeNumber(1, undefined, 'milliseconds')
  readonly HTTP_HEADERS_TIMEOUT_MS: number = 10_000;

  @Setting({
    description:
      "an idle keep-alive connection is closed after this; keep it above a proxy's upstream keep-alive (nginx: 60 s)",
    default: '`65000`',
  })
  @WholeNumber(1, undefined, 'milliseconds')
  readonly HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 65_000;

  @Setting({ description: 'connections beyond this many are dropped at once', default: '`1000`' })
  @WholeNumber(1)
  readonly HTTP_MAX_CONNECTIONS: number = 1_000;

  /**
   * The environment the settings came from, for the realm file's `${VAR:default}` placeholders, without
   * the master keys (load-settings.ts): only the secrets module reads those.
   */
  readonly environment: Environment = {};

  /** No AUTH_ISSUER_URL: tokens come from the embedded issuer on this origin. */
  get authIssuerEmbedded(): boolean {
    return this.AUTH_ISSUER_URL === undefined;
  }

  /** Local mode: embedded database and issuer, everything on the developer's machine. */
  get localMode(): boolean {
    return this.authIssuerEmbedded && this.DATABASE_URL === undefined;
  }

  /**
   * Where to listen; undefined: every interface (Node's default). The embedded issuer has well-known
   * development passwords: this machine only, unless HOST opens it.
   */
  get listenHost(): string | undefined {
    return this.HOST ?? (this.authIssuerEmbedded ? '127.0.0.1' : undefined);
  }

  /** The token issuer to trust, exactly as tokens name it in `iss`. */
  get authIssuerUrl(): string {
    return this.AUTH_ISSUER_URL ?? `${this.PUBLIC_BASE_URL}${realmPath}`;
  }

  /** Where the issuer's signing keys are fetched from. */
  get authJwksUrl(): string {
    return this.AUTH_JWKS_URL ?? `${this.authIssuerUrl}/protocol/openid-connect/certs`;
  }

  /** What status lists and did:web documents may be fetched from beyond public https (common/outbound.ts). */
  get statusListAllowPrivateTargets(): OutboundPolicy['allowPrivate'] {
    return this.STATUS_LIST_ALLOW_PRIVATE_TARGETS ?? this.privateTargetsDefault;
  }

  /** Where webhook deliveries may go beyond public https (common/outbound.ts). */
  get webhookAllowPrivateTargets(): OutboundPolicy['allowPrivate'] {
    return this.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? this.privateTargetsDefault;
  }

  /**
   * Unset, local mode reaches loopback only (a receiver on the developer's machine), not the other
   * private ranges of the network it happens to be on.
   */
  private get privateTargetsDefault(): OutboundPolicy['allowPrivate'] {
    return this.localMode ? 'loopback' : false;
  }
}

/**
 * The key material, validated with the other settings but never part of what is injected: only the
 * secrets module reads it into the vault (secrets/master-keys.ts).
 */
export class MasterKeySettings {
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
  readonly AGENT_MASTER_KEY?: string;

  @Setting({
    description:
      'earlier master keys, base64, comma-separated, that open what they sealed but seal nothing; empty once `npm run keys:rewrap` has re-sealed everything',
    default: 'unset: none',
    secret: true,
  })
  @Parsed(
    commaList(
      /^[A-Za-z0-9+/]{43}=?$/,
      '$property must be a comma-separated list of keys, each 32 random bytes in base64',
    ),
  )
  readonly AGENT_PREVIOUS_MASTER_KEYS: readonly string[] = [];
}
