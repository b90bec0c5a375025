import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TrustedIssuerEntity } from './trusted-issuer.entity.js';
import { TenantsModule } from '../tenants/tenants.module.js';
import { TrustedIssuerPolicy } from './trusted-issuer-policy.js';
import { TrustedIssuerRepository } from './trusted-issuer.repository.js';
import { TrustedIssuersController } from './trusted-issuers.controller.js';
import { TrustedIssuersService } from './trusted-issuers.service.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const trustedIssuerEntities = [TrustedIssuerEntity];

@Module({
  imports: [TypeOrmModule.forFeature(trustedIssuerEntities), TenantsModule],
  controllers: [TrustedIssuersController],
  providers: [TrustedIssuerRepository, TrustedIssuersService, TrustedIssuerPolicy],
  exports: [TrustedIssuerPolicy],
})
export class TrustedIssuersModule {}
