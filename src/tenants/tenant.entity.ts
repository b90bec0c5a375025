import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';

// Constraint and index names match the migrations, so that `migration:generate` sees no drift.
@Entity({ name: 'tenant' })
@Check('tenant_id_check', `"id" ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'`)
@Check('tenant_label_check', `char_length("label") >= 1`)
@Index('tenant_created_at_idx', ['createdAt', 'id'])
@Index('tenant_updated_at_idx', ['updatedAt', 'id'])
@Index('tenant_label_idx', ['label', 'id'])
// Trigram (GIN, gin_trgm_ops) indexes for `q`; TypeORM cannot express the operator class, so it leaves
// them to their migration (1795348774403-tenant-search-index) instead of dropping them as unknown.
@Index('tenant_id_trgm_idx', { synchronize: false })
@Index('tenant_label_trgm_idx', { synchronize: false })
export class TenantEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ type: 'varchar', length: 200 })
  label: string;

  @Column({ name: 'image_url', type: 'varchar', length: 2048, nullable: true })
  imageUrl: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
