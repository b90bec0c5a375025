import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Settings } from '../config/settings.js';
import { KeyVault } from '../secrets/key-vault.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { DidController } from './did.controller.js';
import { DidEntity } from './did.entity.js';
import { didSealedColumns } from './did.sealed-columns.js';
import { DidRepository } from './did.repository.js';
import { DidService } from './did.service.js';
import { TenantKeys } from './tenant-keys.service.js';
import { TenantSigningKeyEntity } from './tenant-signing-key.entity.js';
import { TenantSigningKeyRepository } from './tenant-signing-key.repository.js';
import { UnsealedKeys } from './unsealed-keys.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const didEntities = [DidEntity, TenantSigningKeyEntity];

@Module({
  imports: [TypeOrmModule.forFeature(didEntities), SecretsModule.forFeature(didSealedColumns)],
  controllers: [DidController],
  providers: [
    DidService,
    DidRepository,
    TenantKeys,
    TenantSigningKeyRepository,
    {
      provide: UnsealedKeys,
      useFactory: (vault: KeyVault, settings: Settings) =>
        new UnsealedKeys(vault, settings.SIGNING_KEY_CACHE_MAX),
      inject: [KeyVault, Settings],
    },
  ],
  exports: [DidService, TenantKeys],
})
export class DidModule {}
