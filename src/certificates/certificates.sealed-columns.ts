import { type SealedColumn } from '../secrets/sealed-columns.js';

/** The purpose the authority's private key is sealed for (the vault's associated data). */
export const authorityKeyPurpose = 'certificate-authority-key';

/** The authority's private key: service-wide, so its own row id is the owner it is bound to. */
export const certificatesSealedColumns: readonly SealedColumn[] = [
  {
    table: 'certificate_authority',
    id: 'id',
    idType: 'uuid',
    owner: 'id',
    box: 'private_key_sealed',
    keyId: 'master_key_id',
    purpose: authorityKeyPurpose,
  },
];
