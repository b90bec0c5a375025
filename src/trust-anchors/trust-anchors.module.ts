import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantsModule } from '../tenants/tenants.module.js';
import { TrustAnchorEntity } from './trust-anchor.entity.js';
import { TrustAnchorPolicy } from './trust-anchor-policy.js';
import { TrustAnchorRepository } from './trust-anchor.repository.js';
import { TrustAnchorsController } from './trust-anchors.controller.js';
import { TrustAnchorsService } from './trust-anchors.service.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const trustAnchorEntities = [TrustAnchorEntity];

@Module({
  imports: [TypeOrmModule.forFeature(trustAnchorEntities), TenantsModule],
  controllers: [TrustAnchorsController],
  providers: [TrustAnchorRepository, TrustAnchorsService, TrustAnchorPolicy],
  exports: [TrustAnchorPolicy],
})
export class TrustAnchorsModule {}
