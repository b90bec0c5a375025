import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module.js';
import { TrustedIssuerPolicy } from './trusted-issuer-policy.js';
import { TrustedIssuersController } from './trusted-issuers.controller.js';
import { TrustedIssuersService } from './trusted-issuers.service.js';

@Module({
  imports: [TenantsModule],
  controllers: [TrustedIssuersController],
  providers: [TrustedIssuersService, TrustedIssuerPolicy],
  exports: [TrustedIssuerPolicy],
})
export class TrustedIssuersModule {}
