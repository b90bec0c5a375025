import { type SealedColumn } from '../../secrets/sealed-columns.js';

/** The KeyVault purpose of a login provider's client secret (its tenant as owner). */
export const loginProviderSecretPurpose = 'oid4vci-login-provider-secret';

/** A login provider's client secret: master-key rotation re-seals it. */
export const loginProviderSealedColumns: readonly SealedColumn[] = [
  {
    table: 'oid4vci_login_provider',
    id: 'tenant_id',
    idType: 'varchar',
    owner: 'tenant_id',
    box: 'client_secret_sealed',
    keyId: 'master_key_id',
    purpose: loginProviderSecretPurpose,
  },
];
