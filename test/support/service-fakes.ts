import { type DataSource, type EntityManager } from 'typeorm';
import { type Clock } from '../../src/common/clock.js';
import { DomainException } from '../../src/common/problem/domain.exception.js';
import {
  type ChangeStatement,
  type DomainEvent,
  type EventOutbox,
} from '../../src/events/event-outbox.js';

/**
 * The parts every service's unit test fakes the same way: the clock, the transactions, the outbox. A
 * spec's `newTestService()` builds its service over these and its owner's fakes and returns them all.
 */

/** A clock the test moves by hand: time passes in a test without a sleep. */
export function testClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  const clock: Clock = () => now;
  return {
    clock,
    advance(ms: number) {
      now += ms;
    },
  };
}

/**
 * Transactions without a database: every one runs with the same manager, and `log` says how each ended
 * (`begin`, then `commit`, or `rollback` when the work threw), so a test sees what a refusal undid.
 */
export function fakeTransactions() {
  const log: string[] = [];
  const manager = { name: 'the transaction' } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: async <T>(run: (manager: EntityManager) => Promise<T>): Promise<T> => {
      log.push('begin');
      try {
        const result = await run(manager);
        log.push('commit');
        return result;
      } catch (error) {
        log.push('rollback');
        throw error;
      }
    },
  } as unknown as DataSource;
  return { dataSource, manager, log };
}

/**
 * The event outbox, recording. `withChange` writes its event only when the change touched a row, as
 * the real one does in one statement; `rows` is what the change answers (default: one row).
 */
export function fakeOutbox() {
  const fake = {
    events: [] as DomainEvent[],
    changes: [] as ChangeStatement[],
    managers: [] as unknown[],
    rows: [{ id: 'changed' }] as unknown[],
    outbox: undefined as unknown as EventOutbox,
  };
  fake.outbox = {
    emit: (manager: EntityManager, event: DomainEvent) => {
      fake.managers.push(manager);
      fake.events.push(event);
      return Promise.resolve();
    },
    withChange: (runner: unknown, change: ChangeStatement, event: DomainEvent) => {
      fake.managers.push(runner);
      fake.changes.push(change);
      if (fake.rows.length > 0) fake.events.push(event);
      return Promise.resolve(fake.rows);
    },
  } as unknown as EventOutbox;
  return fake;
}

/** The catalogued code a service call refused with, or undefined when it succeeded. */
export async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(DomainException);
    return (error as DomainException).code;
  }
}
