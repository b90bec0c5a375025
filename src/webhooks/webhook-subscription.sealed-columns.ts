import { type SealedColumn } from '../secrets/sealed-columns.js';

const secret = {
  table: 'webhook_subscription',
  id: 'id',
  idType: 'uuid',
  owner: 'id',
  purpose: 'webhook-secret',
} as const;

/** A subscription's signing secrets, current and previous, sealed with the subscription as owner. */
export const webhookSealedColumns: readonly SealedColumn[] = [
  { ...secret, box: 'secret_sealed', keyId: 'secret_master_key_id' },
  { ...secret, box: 'previous_secret_sealed', keyId: 'previous_secret_master_key_id' },
];
