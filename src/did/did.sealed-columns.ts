import { type SealedColumn } from '../secrets/sealed-columns.js';

/** The purpose a DID's private key is sealed for (the vault's associated data). */
export const didKeyPurpose = 'did-private-key';

/** The DID's private key, sealed with its tenant as owner (did.entity.ts). */
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
];
