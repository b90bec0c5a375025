import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';

export const walletAttestationSettings = ['required', 'optional'] as const;
export type WalletAttestationSetting = (typeof walletAttestationSettings)[number];

/** The setting in force: the tenant's choice, else required once it lists a wallet provider. */
export function settingInForce(
  setting: WalletAttestationSetting | null,
  listed: boolean,
): WalletAttestationSetting {
  return setting ?? (listed ? 'required' : 'optional');
}

/**
 * A tenant's explicit choice of whether its token endpoint requires a wallet attestation; without a
 * row the default applies (required once it lists a wallet provider, docs/wallet-providers.md).
 */
@Entity({ name: 'wallet_attestation_policy' })
export class WalletAttestationPolicyEntity {
  @PrimaryColumn({
    name: 'tenant_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'wallet_attestation_policy_pkey',
  })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'wallet_attestation_policy_tenant_id_fkey',
  })
  tenant?: unknown;

  @Column({ name: 'wallet_attestation', type: 'varchar', length: 16 })
  walletAttestation: WalletAttestationSetting;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
