import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DidModule } from '../did/did.module.js';
import { TenantEntity } from './tenant.entity.js';
import { TenantsController } from './tenants.controller.js';
import { TenantsService } from './tenants.service.js';
import { TenantPageAnchors } from './tenant-page-anchors.js';
import { TenantRepository } from './tenant.repository.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const tenantEntities = [TenantEntity];

@Module({
  imports: [TypeOrmModule.forFeature(tenantEntities), DidModule],
  controllers: [TenantsController],
  providers: [TenantsService, TenantPageAnchors, TenantRepository],
  exports: [TenantsService],
})
export class TenantsModule {}
