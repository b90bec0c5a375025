import { type SealedColumn } from '../secrets/sealed-columns.js';

/** The purpose a kept answer is sealed for (the vault's associated data). */
export const idempotentAnswerPurpose = 'idempotent-answer';

/** The answer kept for an idempotency key, sealed with the key's row id as owner. */
export const idempotencySealedColumns: readonly SealedColumn[] = [
  {
    table: 'idempotency_key',
    id: 'id',
    idType: 'varchar',
    owner: 'id',
    box: 'answer_sealed',
    keyId: 'answer_master_key_id',
    purpose: idempotentAnswerPurpose,
  },
];
