import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantsModule } from '../tenants/tenants.module.js';
import { ClientAttestationsService } from './client-attestations.service.js';
import { KeyAttestationsService } from './key-attestations.service.js';
import { SpentProofPurge } from './spent-proof-purge.js';
import { SpentProofEntity } from './spent-proof.entity.js';
import { SpentProofs } from './spent-proofs.js';
import { WalletAttestationPolicyEntity } from './wallet-attestation-policy.entity.js';
import { WalletProviderCertificates } from './wallet-provider-certificates.js';
import { WalletProviderEntity } from './wallet-provider.entity.js';
import { WalletProviderRepository } from './wallet-provider.repository.js';
import { WalletProvidersController } from './wallet-providers.controller.js';
import { WalletProvidersService } from './wallet-providers.service.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const walletProviderEntities = [
  WalletProviderEntity,
  WalletAttestationPolicyEntity,
  SpentProofEntity,
];

/**
 * Trusted wallet providers, the client attestations and key attestations checked against them, and
 * the one-time proof ids every instance shares (docs/wallet-providers.md).
 */
@Module({
  imports: [TypeOrmModule.forFeature(walletProviderEntities), TenantsModule],
  controllers: [WalletProvidersController],
  providers: [
    WalletProviderRepository,
    WalletProvidersService,
    WalletProviderCertificates,
    ClientAttestationsService,
    KeyAttestationsService,
    SpentProofs,
    SpentProofPurge,
  ],
  exports: [ClientAttestationsService, KeyAttestationsService, SpentProofs],
})
export class WalletProvidersModule {}
