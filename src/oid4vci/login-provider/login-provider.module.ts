import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SecretsModule } from '../../secrets/secrets.module.js';
import { TenantsModule } from '../../tenants/tenants.module.js';
import { LoginProviderController } from './login-provider.controller.js';
import { LoginProviderEntity } from './login-provider.entity.js';
import { LoginProviderRepository } from './login-provider.repository.js';
import { loginProviderSealedColumns } from './login-provider.sealed-columns.js';
import { LoginProvidersService } from './login-providers.service.js';
import { PersonLoginService } from './person-login.service.js';
import { ProviderDocuments } from './provider-documents.js';

/** The tables this folder owns (oid4vci.module.ts lists them with the feature's). */
export const loginProviderEntities = [LoginProviderEntity];

/**
 * Each tenant's login provider and the OpenID Connect client its issuer logs people in with
 * (docs/login-provider.md); exports `PersonLoginService` for the authorization code flow.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature(loginProviderEntities),
    SecretsModule.forFeature(loginProviderSealedColumns),
    TenantsModule,
  ],
  controllers: [LoginProviderController],
  providers: [
    LoginProviderRepository,
    LoginProvidersService,
    ProviderDocuments,
    PersonLoginService,
  ],
  exports: [PersonLoginService],
})
export class LoginProviderModule {}
