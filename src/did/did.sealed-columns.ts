import { type SealedColumn } from '../secrets/sealed-columns.js';

/** The purpose a DID's private key is sealed for (the vault's associated data). */
export const didKeyPurpose = 'did-private-key';

/** The purpose a tenant's further signing keys (ES256) are sealed for. */
export const signingKeyPurpose = 'tenant-signing-key';

/** The DID's private key, then the further signing keys, each sealed with its tenant as owner. */
export const didSealedColumns: readonly SealedColumn[] = [
  {
    table: 'tenant_did',
    id: 'did',
    idType: 'varchar',
    owner: 'tenant_id',
    box: 'private_key_sealed',
    keyId: 'master_key_id',
    purpose: didKeyPurpose,
  },
  {
    table: 'tenant_signing_key',
    id: 'id',
    idType: 'uuid',
    owner: 'tenant_id',
    box: 'private_key_sealed',
    keyId: 'master_key_id',
    purpose: signingKeyPurpose,
  },
];
