import { createHash } from 'node:crypto';
import pg from 'pg';
import { Counter } from 'prom-client';
import { asUnavailable, isServerError, isStalePlan } from './connection-errors.js';

/**
 * Failed queries of every pool in the process: `server` (PostgreSQL refused the statement; its SQLSTATE
 * class) or `connection` (no answer: timeout, broken socket). Each service's registry includes it.
 */
export const queryErrors = new Counter({
  name: 'db_query_errors_total',
  help: 'Queries that failed: refused by PostgreSQL (by SQLSTATE class) or without an answer',
  labelNames: ['kind', 'sqlstate_class'] as const,
  registers: [],
});

function countError(error: unknown): void {
  if (isServerError(error)) {
    queryErrors.inc({ kind: 'server', sqlstate_class: String(error.code ?? '').slice(0, 2) });
  } else {
    queryErrors.inc({ kind: 'connection', sqlstate_class: '' });
  }
}

type QueryCallback = (error: unknown, ...results: unknown[]) => void;

/** Statements kept prepared on one connection at most; further ones are sent unnamed. */
export const preparedPerConnection = 256;
const names = new Map<string, string | null>();

/**
 * Statements whose best plan depends on their values: a pattern (`ILIKE $1`), whose rarity only the
 * value shows, and an optional filter (`$2::text IS NULL OR ...`), which a plan for the value folds
 * away. They are sent unnamed, so each call is planned for its values; a generic plan of a search walks
 * every row where a plan for the pattern reads a trigram index (docs/performance.md).
 */
const plannedPerCall = /\bI?LIKE\s+[$:(]|\$\d+(?:::[\w ]+(?:\[\])?)?\s+IS\s+NULL\s+OR\b/i;

/** Whether the pool sends `text` unnamed, planned at each call for its values (`plannedPerCall`). */
export function isPlannedPerCall(text: string): boolean {
  return plannedPerCall.test(text);
}

/**
 * A name for the statement's text: the same text, the same name, on every connection; null for one
 * `plannedPerCall`. Decided once per text.
 */
function nameOf(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    name = isPlannedPerCall(text)
      ? null
      : `s${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    if (names.size < 4 * preparedPerConnection) names.set(text, name);
  }
  return name;
}

/**
 * The client class of the service's pools (pg-pool's `Client` option). After an error that the server
 * did not report (a read timeout, a broken socket) nobody knows what the server is still doing on the
 * connection, so the client ends it: the pool then drops it instead of handing an open or failed
 * transaction, or a statement still running, to the next request. Errors that say the database is
 * unavailable reach the caller as DependencyUnavailableError.
 */
export class BoundedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection lost while checked out but between queries (the server ended an idle transaction,
    // a restart) is an 'error' event, which ends the process when nobody listens; the pool drops the
    // client on release (it is no longer queryable) and its next query fails on its own.
    this.on('error', () => undefined);
  }

  private readonly prepared = new Set<string>();

  // One signature for pg's many overloads: arguments and answer pass through unchanged, except that a
  // statement with parameters is sent as a named prepared statement (see `named`).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...given: unknown[]): any {
    const { args, fresh } = this.named(given);
    const callbackAt = args.findIndex((argument) => typeof argument === 'function');
    if (callbackAt >= 0) {
      const callback = args[callbackAt] as QueryCallback;
      args[callbackAt] = (error: unknown, ...results: unknown[]) => {
        this.endAfter(error, fresh);
        callback(error === undefined || error === null ? error : asUnavailable(error), ...results);
      };
      return super.query.apply(this, args as never);
    }
    const answer: unknown = super.query.apply(this, args as never);
    if (!(answer instanceof Promise)) return answer;
    return answer.catch((error: unknown) => {
      this.endAfter(error, fresh);
      throw asUnavailable(error);
    });
  }

  /**
   * `query(text, values)` as `query({name, text, values})`: PostgreSQL parses and analyses a statement
   * the first time this connection sends it, plans it for the values of its first five calls and then,
   * unless that generic plan costs more than theirs did, keeps one plan for all (`plan_cache_mode`
   * `auto`, PostgreSQL's default); parsing and planning were most of the service's database time
   * (docs/performance.md). Only statements with parameters, which pg sends with the extended protocol
   * anyway (so one statement each), not those `plannedPerCall`, and at most `preparedPerConnection`.
   */
  private named(args: unknown[]): { args: unknown[]; fresh?: string } {
    const [text, values, ...rest] = args;
    if (typeof text !== 'string' || !Array.isArray(values) || values.length === 0) return { args };
    const name = nameOf(text);
    if (name === null) return { args };
    const named = [{ name, text, values }, ...rest];
    if (this.prepared.has(name)) return { args: named };
    if (this.prepared.size >= preparedPerConnection) return { args };
    this.prepared.add(name);
    // A first call that fails may not have prepared it: endAfter gives the place back.
    return { args: named, fresh: name };
  }

  private endAfter(error: unknown, fresh?: string): void {
    if (error === undefined || error === null) return;
    if (fresh !== undefined) this.prepared.delete(fresh);
    countError(error);
    // A plan gone stale stays so on this connection: end it, and the pool makes a new one.
    if (isServerError(error) && !isStalePlan(error)) return;
    // With a statement still running, pg destroys the socket: the server rolls its transaction back.
    this.end().catch(() => undefined);
  }
}
