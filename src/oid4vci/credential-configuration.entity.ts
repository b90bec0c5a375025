import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import {
  type ClaimDescriptionDto,
  type ClaimPathElement,
  type CredentialDefinitionDto,
  type CredentialDisplayDto,
} from './dto/credential-display.dto.js';
import {
  type CredentialFormat,
  type Cryptosuite,
  type SigningAlgorithm,
} from './dto/credential-configuration.dto.js';
import { type KeyAttestationsRequiredDto } from './dto/key-attestations-required.dto.js';

/** A kind of credential the tenant offers over OpenID4VCI (docs/oid4vci.md): one entry of its metadata. */
@Entity({ name: 'oid4vci_credential_configuration' })
@Index('oid4vci_credential_configuration_tenant_idx', ['tenantId', 'createdAt'])
export class CredentialConfigurationEntity {
  @PrimaryColumn({
    name: 'tenant_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'oid4vci_credential_configuration_pkey',
  })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'oid4vci_credential_configuration_tenant_id_fkey',
  })
  tenant?: unknown;

  /** The `credential_configuration_id` wallets see, chosen by the tenant. */
  @PrimaryColumn({
    name: 'configuration_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'oid4vci_credential_configuration_pkey',
  })
  id: string;

  @Column({ type: 'varchar', length: 16 })
  format: CredentialFormat;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  vct: string | null;

  /** mso_mdoc only: the mdoc document type (ISO/IEC 18013-5 §8.3.2.1.2.1), e.g. org.iso.18013.5.1.mDL. */
  @Column({ type: 'varchar', length: 256, nullable: true })
  doctype: string | null;

  @Column({ name: 'credential_definition', type: 'jsonb', nullable: true })
  credentialDefinition: CredentialDefinitionDto | null;

  @Column({ type: 'jsonb' })
  claims: ClaimDescriptionDto[];

  @Column({ type: 'jsonb' })
  display: CredentialDisplayDto[];

  @Column({ name: 'selectively_disclosable', type: 'jsonb', nullable: true })
  selectivelyDisclosable: ClaimPathElement[][] | null;

  @Column({ name: 'expires_in_seconds', type: 'integer', nullable: true })
  expiresInSeconds: number | null;

  @Column({ type: 'boolean' })
  revocable: boolean;

  @Column({ name: 'signing_algorithm', type: 'varchar', length: 16, nullable: true })
  signingAlgorithm: SigningAlgorithm | null;

  @Column({ type: 'varchar', length: 32, nullable: true })
  cryptosuite: Cryptosuite | null;

  /** Which credential claims the person's login gives: `{credentialClaim: loginClaim}` (docs/oid4vci.md). */
  @Column({ name: 'claims_from_login', type: 'jsonb', nullable: true })
  claimsFromLogin: Record<string, string> | null;
  /** OpenID4VCI 1.0 Appendix D.1 `key_attestations_required`; null: no key attestation required. */
  @Column({ name: 'key_attestations_required', type: 'jsonb', nullable: true })
  keyAttestationsRequired: KeyAttestationsRequiredDto | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
