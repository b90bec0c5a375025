import 'reflect-metadata';
import { IsIn, IsOptional, Matches } from 'class-validator';
import { logLevels, type LogLevel } from '../common/logging.js';
import { Parsed, refuse, Setting, WholeNumber } from './setting-decorators.js';
import { FeatureSettings } from './feature-settings.js';

/**
 * The settings of operating it: metrics, rate limits, admission, the database pool, logs and the HTTP
 * server's bounds (docs/operations.md).
 */
export class OperationSettings extends FeatureSettings {
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

  @Setting({
    description:
      "at shutdown, idle keep-alive connections are left this long for their client to close before the app closes them; keep it above a proxy's upstream keep-alive (our nginx: 1 s)",
    default: '`2000`',
  })
  @WholeNumber(0, 8_000, 'milliseconds')
  readonly SHUTDOWN_IDLE_WAIT_MS: number = 2_000;

  @Setting({ description: 'connections beyond this many are dropped at once', default: '`1000`' })
  @WholeNumber(1)
  readonly HTTP_MAX_CONNECTIONS: number = 1_000;

  @Setting({
    description:
      "tenants' private signing keys kept unsealed in memory, ready to sign (two per tenant: its DID's Ed25519 key and its ES256 key), the least recently used dropped beyond it; `0`: every signature unseals its key",
    default: '`2000`',
  })
  @WholeNumber(0, 1_000_000)
  readonly SIGNING_KEY_CACHE_MAX: number = 2_000;
}
