import { type KeyVault } from '../../secrets/key-vault.js';
import { type SealedColumn } from '../../secrets/sealed-columns.js';
import { type PresentationRequestEntity } from './presentation-request.entity.js';

/** The KeyVault purpose of a request's reference and response key. */
export const requestSecretsPurpose = 'oid4vp-request-secrets';
/** The KeyVault purpose of the claims a wallet disclosed. */
export const disclosedClaimsPurpose = 'oid4vp-disclosed-claims';

/** What a request seals for its tenant (`oid4vp_request.secrets_sealed`), as JSON. */
export interface RequestSecrets {
  /** The random last segment of `request_uri`. */
  reference: string;
  /** For `direct_post.jwt`: the ephemeral P-256 private JWK the wallet encrypts its answer to. */
  responseKey?: Record<string, unknown>;
}

/** A request's sealed reference and response key, opened. */
export function openSecrets(
  vault: KeyVault,
  row: Pick<PresentationRequestEntity, 'tenantId' | 'secretsSealed' | 'masterKeyId'>,
): RequestSecrets {
  return vault.openJson(row.tenantId, row.secretsSealed, requestSecretsPurpose, row.masterKeyId);
}

/** Sealed with the tenant as owner: master-key rotation re-seals them. */
export const presentationRequestSealedColumns: readonly SealedColumn[] = [
  {
    table: 'oid4vp_request',
    id: 'id',
    idType: 'uuid',
    owner: 'tenant_id',
    box: 'secrets_sealed',
    keyId: 'master_key_id',
    purpose: requestSecretsPurpose,
  },
  {
    table: 'oid4vp_request',
    id: 'id',
    idType: 'uuid',
    owner: 'tenant_id',
    box: 'claims_sealed',
    keyId: 'claims_master_key_id',
    purpose: disclosedClaimsPurpose,
  },
];
