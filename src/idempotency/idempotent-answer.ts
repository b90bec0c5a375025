import { AsyncLocalStorage } from 'node:async_hooks';
import { type DataSource, type EntityManager } from 'typeorm';
import { DomainException } from '../common/problem/domain.exception.js';

/** Larger answers are not kept (today's largest is a credential of at most the 100 kB body limit). */
export const maxKeptAnswerBytes = 512 * 1024;

/** The key a request holds while its handler runs (IdempotencyInterceptor). */
export interface HeldKey {
  readonly rowId: string;
  readonly owner: string;
  /** The status the route answers with. */
  readonly status: number;
  /** Seals the answer and records it in the manager's transaction; false when the key was taken over. */
  readonly record: (json: string, manager: EntityManager) => Promise<boolean>;
  /** Set once the answer is recorded in the effect's own transaction. */
  kept: boolean;
}

const heldKeys = new AsyncLocalStorage<HeldKey>();

/** Runs a handler with its request's key at hand for keepIdempotentAnswer. */
export function withHeldKey<T>(key: HeldKey, run: () => Promise<T>): Promise<T> {
  return heldKeys.run(key, run);
}

/** The answer as stored: wrapped, so that a 204's absent body is kept too. */
export function answerJson(body: unknown): string {
  const json = JSON.stringify({ body });
  if (Buffer.byteLength(json, 'utf8') > maxKeptAnswerBytes) {
    throw new Error(`An answer of more than ${maxKeptAnswerBytes} bytes cannot be kept`);
  }
  return json;
}

/**
 * Records the answer of a request made with an `Idempotency-Key` in the transaction that makes its
 * effect, so that both commit or neither does: a retry after a 503 whose COMMIT was applied replays this
 * answer (docs/api.md, Retrying safely). Does nothing for a request without a key. `body` must be exactly
 * what the handler answers. Throws IDEMPOTENCY_KEY_IN_USE, rolling the effect back, when another attempt
 * took the key over meanwhile.
 */
export async function keepIdempotentAnswer(manager: EntityManager, body: unknown): Promise<void> {
  const key = heldKeys.getStore();
  if (key === undefined) return;
  if (!(await key.record(answerJson(body), manager))) throw keyTakenOver();
  key.kept = true;
}

/**
 * Runs an effect that needs no transaction of its own (one statement): in a transaction with the
 * request's kept answer when it holds an `Idempotency-Key`, otherwise alone on the pool's manager.
 */
export function withKeptAnswer<T>(
  dataSource: DataSource,
  body: unknown,
  effect: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  if (heldKeys.getStore() === undefined) return effect(dataSource.manager);
  return dataSource.transaction(async (manager) => {
    await keepIdempotentAnswer(manager, body);
    return effect(manager);
  });
}

export function keyTakenOver(): DomainException {
  return new DomainException(
    'IDEMPOTENCY_KEY_IN_USE',
    'Another request with this Idempotency-Key took it over while this one ran; nothing was stored by this one.',
    undefined,
    { 'Retry-After': '1' },
  );
}
