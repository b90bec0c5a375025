import { Module } from '@nestjs/common';
import { TrustedIssuerPolicy } from './trusted-issuer-policy.js';
import { TrustedIssuerRepository } from './trusted-issuer.repository.js';
import { TrustedIssuersController } from './trusted-issuers.controller.js';
import { TrustedIssuersService } from './trusted-issuers.service.js';

@Module({
  controllers: [TrustedIssuersController],
  providers: [TrustedIssuerRepository, TrustedIssuersService, TrustedIssuerPolicy],
  exports: [TrustedIssuerPolicy],
})
export class TrustedIssuersModule {}
