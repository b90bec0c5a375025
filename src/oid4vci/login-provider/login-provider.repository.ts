import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { LoginProviderEntity } from './login-provider.entity.js';

/** What a save writes; the times are the database's. */
export type NewLoginProvider = Omit<LoginProviderEntity, 'createdAt' | 'tenant'>;

/** The tenants' login providers (oid4vci_login_provider): at most one row per tenant. */
@Injectable()
export class LoginProviderRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(tenantId: string): Promise<LoginProviderEntity | null> {
    return this.dataSource.getRepository(LoginProviderEntity).findOneBy({ tenantId });
  }

  /**
   * Inserts the tenant's provider or replaces the one it had, in one statement (concurrent saves:
   * the last one wins whole); answers the row as stored.
   */
  async save(provider: NewLoginProvider): Promise<LoginProviderEntity> {
    const rows = await this.dataSource.query<{ created_at: Date }[]>(
      `INSERT INTO oid4vci_login_provider
         (tenant_id, issuer, client_id, client_secret_sealed, master_key_id, scopes)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (tenant_id) DO UPDATE SET
         issuer = EXCLUDED.issuer, client_id = EXCLUDED.client_id,
         client_secret_sealed = EXCLUDED.client_secret_sealed,
         master_key_id = EXCLUDED.master_key_id, scopes = EXCLUDED.scopes,
         created_at = now()
       RETURNING created_at`,
      [
        provider.tenantId,
        provider.issuer,
        provider.clientId,
        provider.clientSecretSealed,
        provider.masterKeyId,
        provider.scopes,
      ],
    );
    return { ...provider, createdAt: rows[0].created_at };
  }

  /** True when the tenant had one. */
  async delete(tenantId: string): Promise<boolean> {
    const { affected } = await this.dataSource
      .getRepository(LoginProviderEntity)
      .delete({ tenantId });
    return (affected ?? 0) > 0;
  }
}
