import { type SealedColumn } from '../../secrets/sealed-columns.js';
import { offerClaimsPurpose } from './offer-claims.js';
import { offerSecretsPurpose } from './offer-secrets.js';

/** An offer's code and reference (its tenant as owner) and its claims (the offer as owner): master-key rotation re-seals them. */
export const offerSealedColumns: readonly SealedColumn[] = [
  {
    table: 'oid4vci_offer',
    id: 'id',
    idType: 'uuid',
    owner: 'tenant_id',
    box: 'secrets_sealed',
    keyId: 'master_key_id',
    purpose: offerSecretsPurpose,
  },
  {
    table: 'oid4vci_offer',
    id: 'id',
    idType: 'uuid',
    owner: 'id',
    box: 'claims_sealed',
    keyId: 'claims_master_key_id',
    purpose: offerClaimsPurpose,
  },
];
