import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { DomainException } from '../common/problem/domain.exception.js';
import { KeyVault } from '../secrets/key-vault.js';
import { IdempotencyKeyRepository, type KeyRow } from './idempotency-key.repository.js';
import { answerJson, type HeldKey } from './idempotent-answer.js';
import { idempotentAnswerPurpose } from './idempotency-key.sealed-columns.js';

/** How long a key names its first request: the contract of docs/api.md. */
export const keyLifetimeSeconds = 24 * 60 * 60;
/**
 * How long an attempt holds its key: far longer than any request runs. After it the attempt counts as
 * gone (its process died) and a retry may take the key over; the old attempt's transaction, should it
 * still run, then fails to record its answer and rolls back (keepIdempotentAnswer).
 */
export const leaseSeconds = 60;

/** What a key leads to: run the request, holding the key, or replay the first answer. */
export type Reservation =
  { kind: 'run'; owner: string } | { kind: 'replay'; status: number; body: unknown };

/** The idempotency keys in PostgreSQL; every statement is its own short transaction, but a kept answer's. */
@Injectable()
export class IdempotencyStore {
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly keys: IdempotencyKeyRepository,
    @Inject(KeyVault) private readonly vault: KeyVault,
  ) {}

  /**
   * Takes the key for a new attempt (a free key, an expired one, or one whose attempt is gone and that
   * names the same request), else tells what it holds: the first answer to replay, 409 while its first
   * request runs, 422 for another request.
   */
  async reserve(rowId: string, fingerprint: string): Promise<Reservation> {
    const owner = randomUUID();
    // A key deleted by the purge between the two statements is taken on the next turn.
    for (let turn = 0; turn < 3; turn++) {
      if (await this.keys.take(rowId, fingerprint, owner, leaseSeconds, keyLifetimeSeconds)) {
        return { kind: 'run', owner };
      }
      const row = await this.keys.findLive(rowId);
      if (row !== undefined) return this.existing(rowId, fingerprint, row);
    }
    throw new Error('The idempotency key could be neither taken nor read');
  }

  private existing(rowId: string, fingerprint: string, row: KeyRow): Reservation {
    if (row.fingerprint !== fingerprint) {
      throw new DomainException(
        'IDEMPOTENCY_KEY_REUSED',
        'This Idempotency-Key was first used with another request (other path, query or body) in the last 24 hours; use a new key for a new request.',
        [{ field: 'Idempotency-Key', message: 'was used with another request' }],
      );
    }
    if (row.state === 'in-progress' || row.answer_sealed === null || row.status === null) {
      throw new DomainException(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this Idempotency-Key is still being processed; retry after it is answered.',
        undefined,
        { 'Retry-After': '1' },
      );
    }
    const masterKeyId = row.answer_master_key_id ?? this.vault.masterKeyId;
    if (!this.vault.has(masterKeyId)) {
      // Like a tenant's key (did.service.ts): another instance may have the master key; the log names it.
      this.logger.error({
        msg: `A kept answer is sealed under master key ${masterKeyId}, which this instance does not have: add it to AGENT_PREVIOUS_MASTER_KEYS`,
        event: 'master-key.unknown',
        masterKeyId,
      });
      throw new DomainException(
        'SERVICE_UNAVAILABLE',
        'The first answer for this Idempotency-Key is sealed under a master key this service is not configured with; try again later.',
        undefined,
        { 'Retry-After': '30' },
      );
    }
    const { body } = this.vault.openJson<{ body: unknown }>(
      rowId,
      row.answer_sealed,
      idempotentAnswerPurpose,
      masterKeyId,
    );
    return { kind: 'replay', status: row.status, body };
  }

  /**
   * Seals the answer (it may hold a webhook secret or a credential's claims) and records it if the
   * attempt still holds the key, in the manager's transaction when given; false when taken over.
   */
  async record(
    key: Pick<HeldKey, 'rowId' | 'owner' | 'status'>,
    json: string,
    manager?: EntityManager,
  ): Promise<boolean> {
    const box = this.vault.seal(key.rowId, Buffer.from(json, 'utf8'), idempotentAnswerPurpose);
    const masterKeyId = this.vault.masterKeyId;
    return this.keys.complete(
      { rowId: key.rowId, owner: key.owner, status: key.status, box, masterKeyId },
      manager,
    );
  }

  /**
   * Records the answer after the handler, for a handler that did not keep it in its own transaction
   * (docs/api.md, Retrying safely, says what that leaves open).
   */
  async complete(key: HeldKey, body: unknown): Promise<void> {
    await this.record(key, answerJson(body));
  }

  /** Frees the key of an attempt that failed, unless its transaction recorded an answer. */
  async release(key: HeldKey): Promise<void> {
    await this.keys.release(key.rowId, key.owner);
  }
}
