import { type SealedColumn } from '../secrets/sealed-columns.js';

/** The purpose a subscription's signing secrets are sealed for (the vault's associated data). */
export const webhookSecretPurpose = 'webhook-secret';

const secret = {
  table: 'webhook_subscription',
  id: 'id',
  idType: 'uuid',
  owner: 'id',
  purpose: webhookSecretPurpose,
} as const;

/** A subscription's signing secrets, current and previous, sealed with the subscription as owner. */
export const webhookSealedColumns: readonly SealedColumn[] = [
  { ...secret, box: 'secret_sealed', keyId: 'secret_master_key_id' },
  { ...secret, box: 'previous_secret_sealed', keyId: 'previous_secret_master_key_id' },
];
