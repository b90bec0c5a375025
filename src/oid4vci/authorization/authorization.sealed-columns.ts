import { type SealedColumn } from '../../secrets/sealed-columns.js';
import { offerClaimsPurpose } from '../offers/offer-claims.js';
import { loginSecretsPurpose } from './authorization.service.js';

/** A login's secrets (its tenant as owner) and a code's claims (its offer as owner): rotation re-seals them. */
export const authorizationSealedColumns: readonly SealedColumn[] = [
  {
    table: 'oid4vci_authorization',
    id: 'id',
    idType: 'uuid',
    owner: 'tenant_id',
    box: 'login_sealed',
    keyId: 'login_master_key_id',
    purpose: loginSecretsPurpose,
  },
  {
    table: 'oid4vci_authorization',
    id: 'id',
    idType: 'uuid',
    owner: 'offer_id',
    box: 'claims_sealed',
    keyId: 'claims_master_key_id',
    purpose: offerClaimsPurpose,
  },
];
