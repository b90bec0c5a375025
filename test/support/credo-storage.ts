import {
  JsonTransformer,
  RecordDuplicateError,
  RecordNotFoundError,
  type AgentContext,
  type BaseRecord,
  type BaseRecordConstructor,
  type Query,
  type QueryOptions,
  type StorageService,
} from '@credo-ts/core';

type AnyRecord = BaseRecord<any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Tags = Record<string, unknown>;
interface Stored {
  id: string;
  type: string;
  value: Record<string, unknown>;
  tags: Tags;
  order: number;
}

/** Credo's storage and KMS interfaces are async; this work is not: a throw becomes a rejection. */
export const later = <T>(work: () => T): Promise<T> => new Promise((resolve) => resolve(work()));

/** A tag query of Credo's storage: plain tags (arrays match as subsets), `$and`, `$or`, `$not`. */
function matches(tags: Tags, query: Record<string, unknown>): boolean {
  const { $and, $or, $not, ...plain } = query as {
    $and?: Record<string, unknown>[];
    $or?: Record<string, unknown>[];
    $not?: Record<string, unknown>;
  };
  for (const [name, wanted] of Object.entries(plain)) {
    if (wanted === undefined) continue;
    const actual = tags[name];
    if (Array.isArray(wanted)) {
      if (!Array.isArray(actual) || !wanted.every((value) => actual.includes(value))) return false;
    } else if (actual !== wanted) return false;
  }
  if ($and && !$and.every((part) => matches(tags, part))) return false;
  if ($or && !$or.some((part) => matches(tags, part))) return false;
  return !($not && matches(tags, $not));
}

/** An index key: a record type's string tag with its value. */
const tagKey = (type: string, name: string, value: string) => `${type}\u0000${name}\u0000${value}`;

/** The records of one agent context, and the ids by each string tag (a query is then no scan). */
interface Records {
  byId: Map<string, Stored>;
  byTag: Map<string, Set<string>>;
  /** Records saved so far: each one's `order`. */
  saved: number;
}

/**
 * Credo 0.6 storage in memory, one map per agent context: Credo keeps no in-memory storage in its
 * packages (its tests have their own, as here), and Askar's native binary cannot be fetched here.
 */
export class InMemoryStorage<T extends AnyRecord = AnyRecord> implements StorageService<T> {
  public readonly supportsCursorPagination = false;
  readonly #contexts = new Map<string, Records>();

  #context(context: AgentContext): Records {
    let records = this.#contexts.get(context.contextCorrelationId);
    if (!records)
      this.#contexts.set(
        context.contextCorrelationId,
        (records = { byId: new Map(), byTag: new Map(), saved: 0 }),
      );
    return records;
  }

  #records(context: AgentContext): Map<string, Stored> {
    return this.#context(context).byId;
  }

  #index(context: AgentContext, stored: Stored, add: boolean) {
    const { byTag } = this.#context(context);
    for (const [name, value] of Object.entries(stored.tags)) {
      if (typeof value !== 'string') continue;
      const key = tagKey(stored.type, name, value);
      const ids = byTag.get(key) ?? new Set<string>();
      if (add) byTag.set(key, ids.add(stored.id));
      else if (ids.delete(stored.id) && ids.size === 0) byTag.delete(key);
    }
  }

  #remove(context: AgentContext, id: string) {
    const stored = this.#records(context).get(id);
    if (stored) this.#index(context, stored, false);
    this.#records(context).delete(id);
  }

  #write(context: AgentContext, record: T) {
    record.updatedAt = new Date();
    const value = JsonTransformer.toJSON(record) as Record<string, unknown>;
    const tags = record.getTags() as Tags;
    // An update keeps the record's place in the map, the order every query answers in.
    const before = this.#records(context).get(record.id);
    if (before) this.#index(context, before, false);
    const order = before?.order ?? this.#context(context).saved++;
    const stored = { id: record.id, type: record.type, value, tags, order };
    this.#records(context).set(record.id, stored);
    this.#index(context, stored, true);
  }

  /** The records a query can match: the fewest that one of its plain string tags has, or all. */
  #candidates(context: AgentContext, type: string, query: Record<string, unknown>): Stored[] {
    const records = this.#records(context);
    const { byTag } = this.#context(context);
    let fewest: Set<string> | undefined;
    for (const [name, value] of Object.entries(query)) {
      if (name.startsWith('$') || typeof value !== 'string') continue;
      const ids = byTag.get(tagKey(type, name, value));
      if (ids === undefined) return [];
      if (fewest === undefined || ids.size < fewest.size) fewest = ids;
    }
    if (fewest === undefined) return [...records.values()];
    return [...fewest].map((id) => records.get(id)!).sort((a, b) => a.order - b.order);
  }

  #read(stored: Stored, recordClass: BaseRecordConstructor<T>): T {
    const record = JsonTransformer.fromJSON<T>(stored.value, recordClass);
    record.id = stored.id;
    // A copy: a tag the caller sets on the record must not change the stored (indexed) ones.
    record.replaceTags({ ...stored.tags });
    return record;
  }

  #found(context: AgentContext, recordClass: { type: string }, id: string): Stored {
    const stored = this.#records(context).get(id);
    if (!stored || stored.type !== recordClass.type)
      throw new RecordNotFoundError(`record with id ${id} not found.`, {
        recordType: recordClass.type,
      });
    return stored;
  }

  public save(context: AgentContext, record: T) {
    return later(() => {
      if (this.#records(context).has(record.id))
        throw new RecordDuplicateError(`Record with id ${record.id} already exists`, {
          recordType: record.type,
        });
      this.#write(context, record);
    });
  }

  public update(context: AgentContext, record: T) {
    return later(() => {
      this.#found(context, record, record.id);
      this.#write(context, record);
    });
  }

  public delete(context: AgentContext, record: T) {
    return later(() => {
      this.#found(context, record, record.id);
      this.#remove(context, record.id);
    });
  }

  public deleteById(context: AgentContext, recordClass: BaseRecordConstructor<T>, id: string) {
    return later(() => {
      this.#found(context, recordClass, id);
      this.#remove(context, id);
    });
  }

  public getById(context: AgentContext, recordClass: BaseRecordConstructor<T>, id: string) {
    return later(() => {
      return this.#read(this.#found(context, recordClass, id), recordClass);
    });
  }

  public async getAll(context: AgentContext, recordClass: BaseRecordConstructor<T>) {
    return this.findByQuery(context, recordClass, {});
  }

  public findByQuery(
    context: AgentContext,
    recordClass: BaseRecordConstructor<T>,
    query: Query<T>,
    options: QueryOptions = {},
  ) {
    return later(() => {
      const { offset = 0, limit } = options;
      const found = this.#candidates(
        context,
        recordClass.type,
        query as Record<string, unknown>,
      ).filter(
        (stored) =>
          stored.type === recordClass.type &&
          matches(stored.tags, query as Record<string, unknown>),
      );
      return found
        .slice(offset, limit === undefined ? undefined : offset + limit)
        .map((stored) => this.#read(stored, recordClass));
    });
  }
}
