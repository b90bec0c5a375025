import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { boundedDriver } from './bounded-pool.js';
import { InitialSchema1763800000000 } from '../../migrations/1763800000000-initial-schema.js';
import { IssuerSessions1763900000000 } from '../../migrations/1763900000000-issuer-sessions.js';
import { TenantSearchIndex1795348774403 } from '../../migrations/1795348774403-tenant-search-index.js';
import { IssuerAuthSessions1795573300000 } from '../../migrations/1795573300000-issuer-auth-sessions.js';
import { IssuerExpiryIndexes1795573400000 } from '../../migrations/1795573400000-issuer-expiry-indexes.js';
import { CredentialStatusLists1795600000000 } from '../../migrations/1795600000000-credential-status-lists.js';
import { IssuedCredentials1795600100000 } from '../../migrations/1795600100000-issued-credentials.js';
import { Webhooks1795700000000 } from '../../migrations/1795700000000-webhooks.js';
import { WebhookSecretKeyIds1795770000000 } from '../../migrations/1795770000000-webhook-secret-key-ids.js';
import { IssuerLoginFailures1795780000000 } from '../../migrations/1795780000000-issuer-login-failures.js';
import { IdempotencyKeys1795790000000 } from '../../migrations/1795790000000-idempotency-keys.js';
import { IssuerRevokedTokens1795791000000 } from '../../migrations/1795791000000-issuer-revoked-tokens.js';
import { WebhookFairness1795792000000 } from '../../migrations/1795792000000-webhook-fairness.js';
import { TrustedIssuers1795793000000 } from '../../migrations/1795793000000-trusted-issuers.js';
import { StatusAllocationByEntry1795794000000 } from '../../migrations/1795794000000-status-allocation-by-entry.js';
import { TenantSigningKeys1795795000000 } from '../../migrations/1795795000000-tenant-signing-keys.js';
import { Oid4vciCredentialConfigurations1795796000000 } from '../../migrations/1795796000000-oid4vci-credential-configurations.js';
import { Oid4vciOffers1795797000000 } from '../../migrations/1795797000000-oid4vci-offers.js';
import { IssuedCredentialFormats1795797100000 } from '../../migrations/1795797100000-issued-credential-formats.js';
import { Oid4vpRequests1795798000000 } from '../../migrations/1795798000000-oid4vp-requests.js';
import { OfferClaimsSealed1795799000000 } from '../../migrations/1795799000000-offer-claims-sealed.js';
import { Certificates1795800000000 } from '../../migrations/1795800000000-certificates.js';
import { CredentialRequestStatements1795800100000 } from '../../migrations/1795800100000-credential-request-statements.js';
import { RecordIssue1795800200000 } from '../../migrations/1795800200000-record-issue.js';
import { Oid4vpRefusedAnswers1795799100000 } from '../../migrations/1795799100000-oid4vp-refused-answers.js';
import { PublishedStatements1795799200000 } from '../../migrations/1795799200000-published-statements.js';
import { Oid4vpRedirectUri1795799250000 } from '../../migrations/1795799250000-oid4vp-redirect-uri.js';
import { TrustAnchors1795799350000 } from '../../migrations/1795799350000-trust-anchors.js';
import { Oid4vciLoginProviders1795800400000 } from '../../migrations/1795800400000-oid4vci-login-providers.js';
import { Oid4vciAuthorizationCode1795800450000 } from '../../migrations/1795800450000-oid4vci-authorization-code.js';
import { CertificatePurposes1795800510000 } from '../../migrations/1795800510000-certificate-purposes.js';
import { Oid4vpDcApi1795800560000 } from '../../migrations/1795800560000-oid4vp-dc-api.js';
import { OfferWithinCap1795800600000 } from '../../migrations/1795800600000-offer-within-cap.js';
import { PresentationRequestWithinCap1795800610000 } from '../../migrations/1795800610000-presentation-request-within-cap.js';
import { OpenPerTenantIndexes1795800620000 } from '../../migrations/1795800620000-open-per-tenant-indexes.js';
import { TenantDidKeyOf1795800630000 } from '../../migrations/1795800630000-tenant-did-key-of.js';
import { OfferTakenByKey1795800640000 } from '../../migrations/1795800640000-offer-taken-by-key.js';
import { WebhookDeliveryClaim1795800650000 } from '../../migrations/1795800650000-webhook-delivery-claim.js';
import { WebhookPendingBySubscription1795800660000 } from '../../migrations/1795800660000-webhook-pending-by-subscription.js';
import { TenantTrustViews1795800670000 } from '../../migrations/1795800670000-tenant-trust-views.js';
import { WalletProviders1795800210000 } from '../../migrations/1795800210000-wallet-providers.js';
import { KeyAttestationsRequired1795800220000 } from '../../migrations/1795800220000-key-attestations-required.js';
import { MdocDoctype1795800520000 } from '../../migrations/1795800520000-mdoc-doctype.js';
import { Oid4vciNotificationEvents1795800230000 } from '../../migrations/1795800230000-oid4vci-notification-events.js';

export const migrations = [
  InitialSchema1763800000000,
  IssuerSessions1763900000000,
  TenantSearchIndex1795348774403,
  IssuerAuthSessions1795573300000,
  IssuerExpiryIndexes1795573400000,
  CredentialStatusLists1795600000000,
  IssuedCredentials1795600100000,
  Webhooks1795700000000,
  WebhookSecretKeyIds1795770000000,
  IssuerLoginFailures1795780000000,
  IdempotencyKeys1795790000000,
  IssuerRevokedTokens1795791000000,
  WebhookFairness1795792000000,
  TrustedIssuers1795793000000,
  StatusAllocationByEntry1795794000000,
  TenantSigningKeys1795795000000,
  Oid4vciCredentialConfigurations1795796000000,
  Oid4vciOffers1795797000000,
  IssuedCredentialFormats1795797100000,
  Oid4vpRequests1795798000000,
  OfferClaimsSealed1795799000000,
  Oid4vpRefusedAnswers1795799100000,
  PublishedStatements1795799200000,
  Oid4vpRedirectUri1795799250000,
  TrustAnchors1795799350000,
  Certificates1795800000000,
  CredentialRequestStatements1795800100000,
  RecordIssue1795800200000,
  WalletProviders1795800210000,
  KeyAttestationsRequired1795800220000,
  Oid4vciNotificationEvents1795800230000,
  Oid4vciLoginProviders1795800400000,
  Oid4vciAuthorizationCode1795800450000,
  CertificatePurposes1795800510000,
  MdocDoctype1795800520000,
  Oid4vpDcApi1795800560000,
  OfferWithinCap1795800600000,
  PresentationRequestWithinCap1795800610000,
  OpenPerTenantIndexes1795800620000,
  TenantDidKeyOf1795800630000,
  OfferTakenByKey1795800640000,
  WebhookDeliveryClaim1795800650000,
  WebhookPendingBySubscription1795800660000,
  TenantTrustViews1795800670000,
];

/**
 * Bounds on the app's database work. PostgreSQL itself cancels a statement that runs or waits for a lock
 * too long, and ends a session left idle inside a transaction, so a stalled statement is rolled back on
 * the server, never applied after its request was answered. The client waits a little longer than the
 * server, for a database that does not answer at all (frozen, partitioned); BoundedClient then drops the
 * connection.
 */
export const appDatabaseBounds = {
  statementTimeoutMs: 2_000,
  lockTimeoutMs: 1_000,
  idleInTransactionTimeoutMs: 5_000,
  queryTimeoutMs: 2_500,
} as const;

/**
 * Migrations may rewrite large tables, so no statement bound; but a schema change waiting for a lock
 * holds up every query queued behind it, so that wait is bounded (start-up then fails with the reason).
 */
export const migrationDatabaseBounds = {
  statementTimeoutMs: 0,
  lockTimeoutMs: 10_000,
  idleInTransactionTimeoutMs: 60_000,
  queryTimeoutMs: undefined,
} as const;

/** The pool's size and how long a caller waits for one of its connections (DATABASE_POOL_*). */
export interface PoolBounds {
  size: number;
  acquireTimeoutMs: number;
}

/** The settings' defaults, for what runs without them (the CLIs, the tests' set-up). */
export const defaultPoolBounds: PoolBounds = { size: 10, acquireTimeoutMs: 1_500 };

/** Migrations run alone at start-up, where a database still waking up deserves a longer wait. */
const migrationPoolBounds: PoolBounds = { size: 10, acquireTimeoutMs: 5_000 };

/** Entity classes (not globs: Jest, the app and the CLIs load exactly the same code). */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

/**
 * The one DataSource definition, used by the app, the CLIs and the tests. The database layer knows no
 * feature: the app auto-loads each feature module's entities (TypeOrmModule.forFeature), what runs
 * outside Nest passes the composition root's list (src/entities.ts), migrations need none.
 */
export function dataSourceOptions(
  url: string,
  purpose: 'app' | 'migrations' = 'app',
  entities: EntityList = [],
  pool: PoolBounds = purpose === 'app' ? defaultPoolBounds : migrationPoolBounds,
): DataSourceOptions {
  const bounds = purpose === 'app' ? appDatabaseBounds : migrationDatabaseBounds;
  return {
    type: 'postgres',
    driver: boundedDriver,
    url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    // Failed queries reach the problem filter, which logs them without their parameters (they may hold
    // sealed keys); TypeORM's own error log would print them.
    logging: ['migration'],
    extra: {
      max: pool.size,
      // Connections once opened stay open: a burst after a quiet minute must not wait for new ones, whose
      // opening on a loaded machine can outlast the wait for a connection.
      min: pool.size,
      // Fail fast when the database is away or frozen, or every connection is busy, so that callers get a
      // 503 instead of hanging: a bound on waiting for a connection (or connecting), bounds on every
      // statement, and TCP keep-alive on the sockets.
      connectionTimeoutMillis: pool.acquireTimeoutMs,
      statement_timeout: bounds.statementTimeoutMs,
      lock_timeout: bounds.lockTimeoutMs,
      idle_in_transaction_session_timeout: bounds.idleInTransactionTimeoutMs,
      query_timeout: bounds.queryTimeoutMs,
      keepAlive: true,
      application_name: 'agent-service',
    },
  };
}

export function createDataSource(
  url: string,
  purpose: 'app' | 'migrations' = 'app',
  entities: EntityList = [],
): DataSource {
  return new DataSource(dataSourceOptions(url, purpose, entities));
}

/** An arbitrary constant: the key of the session-level advisory lock that serialises migrations. */
const migrationLockKey = 7_428_101_903;

/** How often an instance asks again for the lock another instance holds while it migrates. */
const migrationLockPollMs = 250;

/**
 * Runs `work` while holding a PostgreSQL advisory lock, so that several instances starting at once
 * migrate exactly once: the others wait, then find nothing to do.
 */
export async function withMigrationLock<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T> {
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    // Another instance may be migrating for minutes: wait for it however long it takes. Polled, not
    // waited for inside a statement: a waiting statement holds a snapshot, and an index built
    // CONCURRENTLY waits for every older snapshot to end, so it would wait for the waiters.
    for (;;) {
      const [row] = (await lockRunner.query('SELECT pg_try_advisory_lock($1) AS locked', [
        migrationLockKey,
      ])) as { locked: boolean }[];
      if (row?.locked === true) break;
      await sleep(migrationLockPollMs);
    }
    return await work();
  } finally {
    await lockRunner
      .query('SELECT pg_advisory_unlock($1)', [migrationLockKey])
      .catch(() => undefined);
    await lockRunner.release();
  }
}

/** Applies pending migrations under the lock; returns the names of those it applied. */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const applied = await withMigrationLock(dataSource, () =>
    dataSource.runMigrations({ transaction: 'each' }),
  );
  return applied.map((migration) => migration.name);
}
