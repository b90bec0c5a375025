import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { PassportModule } from '@nestjs/passport';
import { AccessPolicyGuard } from './auth/access-policy.guard.js';
import { AccessTokenGuard } from './auth/access-token.guard.js';
import { clockToleranceSeconds, JwtStrategy } from './auth/jwt.strategy.js';
import { VerifiedTokenCache } from './auth/verified-token-cache.js';
import { type Clock } from './issuer/issuer-clock.js';
import { IssuerModule } from './issuer/issuer.module.js';
import { TenantGuard } from './auth/tenant.guard.js';
import { ProblemsController } from './common/problem/problems.controller.js';
import { RouteTable } from './common/problem/route-table.js';
import { APP_CONFIG } from './config/config.token.js';
import { type AppConfig } from './config/app-config.js';
import { DidModule } from './did/did.module.js';
import { KeyVault } from './did/key-vault.js';
import { HealthModule } from './health/health.module.js';
import { TenantsModule } from './tenants/tenants.module.js';

@Module({})
export class AppModule {
  /**
   * The application around an already-migrated DataSource. Guards run in the order listed, each seeing
   * only what the previous ones let through: token (401), role (403), tenant header (400/403/404).
   */
  static register(
    config: AppConfig,
    dataSource: DataSource,
    options: { issuerClock?: Clock } = {},
  ): DynamicModule {
    return {
      module: AppModule,
      imports: [
        DiscoveryModule,
        PassportModule,
        ...(config.authIssuerEmbedded ? [IssuerModule.register(config, options.issuerClock)] : []),
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSource.options }),
          dataSourceFactory: () => Promise.resolve(dataSource),
        }),
        {
          module: class ConfigModule {},
          global: true,
          providers: [
            { provide: APP_CONFIG, useValue: config },
            { provide: KeyVault, useValue: new KeyVault(config.masterKey) },
          ],
          exports: [APP_CONFIG, KeyVault],
        },
        TenantsModule,
        DidModule,
        HealthModule,
      ],
      controllers: [ProblemsController],
      providers: [
        RouteTable,
        {
          provide: VerifiedTokenCache,
          useValue: new VerifiedTokenCache({ clockToleranceSeconds }),
        },
        JwtStrategy,
        { provide: APP_GUARD, useClass: AccessTokenGuard },
        { provide: APP_GUARD, useClass: AccessPolicyGuard },
        { provide: APP_GUARD, useClass: TenantGuard },
      ],
    };
  }
}
