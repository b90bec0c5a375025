import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ClockModule, type Clock } from './common/clock.js';
import { RouteTable } from './common/problem/route-table.js';
import { Settings } from './config/settings.js';
import { dataSourceOptions } from './database/data-source.js';
import { CertificatesModule } from './certificates/certificates.module.js';
import { CredentialsModule } from './credentials/credentials.module.js';
import { DidModule } from './did/did.module.js';
import { EventsModule } from './events/events.module.js';
import { HealthModule } from './health/health.module.js';
import { IdempotencyModule } from './idempotency/idempotency.module.js';
import { IssuerModule } from './issuer/issuer.module.js';
import { type Metrics } from './observability/metrics.js';
import { Oid4vciModule } from './oid4vci/oid4vci.module.js';
import { Oid4vpModule } from './oid4vp/oid4vp.module.js';
import { ObservabilityModule } from './observability/observability.module.js';
import { tracingRequested } from './observability/tracing.js';
import { type KeyVault } from './secrets/key-vault.js';
import { SecretsModule } from './secrets/secrets.module.js';
import { HomeController } from './home/home.controller.js';
import { ProblemsController } from './problems/problems.controller.js';
import { TenantsModule } from './tenants/tenants.module.js';
import { TrustedIssuersModule } from './trusted-issuers/trusted-issuers.module.js';
import { TrustAnchorsModule } from './trust-anchors/trust-anchors.module.js';
import { WalletProvidersModule } from './wallet-providers/wallet-providers.module.js';
import { WebhookOutbox } from './webhooks/webhook-outbox.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';

@Module({})
export class AppModule {
  /**
   * The application around an already-migrated database, the validated settings and the vault that
   * holds the master keys (secrets/master-keys.ts). Nest creates the DataSource with every feature's
   * entities (TypeOrmModule.forFeature); the start-up opens it (bootstrap/create-http-app.ts).
   */
  static register(
    settings: Settings,
    databaseUrl: string,
    metrics: Metrics,
    vault: KeyVault,
    options: { clock?: Clock } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DiscoveryModule,
        ClockModule.register(options.clock),
        {
          // Every provider injects the validated settings by their class (config/settings.ts).
          module: class SettingsModule {},
          global: true,
          providers: [{ provide: Settings, useValue: settings }],
          exports: [Settings],
        },
        TypeOrmModule.forRootAsync({
          useFactory: () => ({
            ...dataSourceOptions(databaseUrl, 'app', [], {
              size: settings.DATABASE_POOL_SIZE,
              acquireTimeoutMs: settings.DATABASE_POOL_ACQUIRE_TIMEOUT_MS,
            }),
            autoLoadEntities: true,
            // Opened after Nest created it, so that a failure rejects the start instead of exiting.
            manualInitialization: true,
          }),
        }),
        SecretsModule.forRoot(vault),
        ObservabilityModule.register(metrics, { tracing: tracingRequested(settings.environment) }),
        AuthModule,
        AuditModule,
        IdempotencyModule,
        // Features write events to EventOutbox; webhooks, which owns the tables, provides it.
        EventsModule.providedBy(WebhookOutbox, [WebhooksModule]),
        ...(settings.authIssuerEmbedded ? [IssuerModule.register(settings)] : []),
        TenantsModule,
        DidModule,
        CertificatesModule,
        CredentialsModule,
        TrustedIssuersModule,
        TrustAnchorsModule,
        WalletProvidersModule,
        Oid4vciModule,
        Oid4vpModule,
        WebhooksModule,
        HealthModule,
      ],
      controllers: [HomeController, ProblemsController],
      providers: [RouteTable],
    };
  }
}
