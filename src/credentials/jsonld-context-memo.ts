import contextApi, { type ActiveContext, type ProcessArguments } from 'jsonld/lib/context.js';
import ContextResolver from 'jsonld/lib/ContextResolver.js';
import jsonldEvents from 'jsonld/lib/events.js';

/*
 * The one place the service reaches into jsonld 9 (docs/performance.md, "JSON-LD contexts").
 *
 * A type-scoped context (every typed node of a VC 2.0 credential: the credential, its subject, its
 * status entry) does not propagate, so jsonld applies it to a fresh copy of the active context, and
 * going down a level reverts to another fresh copy. Its own cache of processed contexts is keyed by the
 * active context object, so with a new copy at every node it never hits: the same contexts are processed
 * and deep-copied again at every node of every credential. Here a context's copy is made once and kept
 * (made by jsonld's own copy, so it holds exactly what jsonld's would), and what processing gives is kept
 * per active context, local context and flags. jsonld never changes an active context after making it
 * (it copies one before defining terms in it), which its own cache relies on too.
 * This must run before jsonld's other modules load: they take `process` and `getInitialContext` from
 * this module's exports when they load (main.ts and the Jest set-up import it first).
 */

/** Processed contexts kept, each up to about a MB (every term of its contexts, copied, and its inverse). */
const maxKept = 256;

interface Processed {
  context: ActiveContext;
  events: unknown[];
}

const state = { enabled: true, hits: 0 };
/** Least recently used first (a Map keeps the order of insertion). */
const kept = new Map<string, Processed>();
/** The contexts of the allowlist: only these URLs name the same document at every call. */
const staticUrls = new Map<string, unknown>();
/** jsonld's limit on the context URLs one list may bring in. */
const maxUrlsPerList = 10;
const copies = new WeakMap<ActiveContext, ActiveContext>();
const seenOnce = new WeakSet<object>();
const ids = new WeakMap<object, number>();
let lastId = 0;

/** For the tests: on (the default) or jsonld's own behaviour, and how often the memo answered. */
export const jsonLdContextMemo = {
  get hits(): number {
    return state.hits;
  },
  setEnabled(enabled: boolean): void {
    state.enabled = enabled;
  },
};

/** The document loader's fixed contexts (never a DID or anything else it resolves at call time). */
export function keepContextsOf(contexts: ReadonlyMap<string, unknown>): void {
  for (const [url, document] of contexts) {
    // A URL two loaders answer differently is not kept at all (undefined marks it).
    const fixed = !staticUrls.has(url) || staticUrls.get(url) === document;
    staticUrls.set(url, fixed && !setsPropagate(document) ? document : undefined);
  }
}

const isStatic = (url: string): boolean => staticUrls.get(url) !== undefined;

/** Whether a context (or a context document) says `@propagate`, which only a list's first may. */
function setsPropagate(context: unknown): boolean {
  if (Array.isArray(context)) return context.some(setsPropagate);
  if (typeof context !== 'object' || context === null) return false;
  const inner = (context as Record<string, unknown>)['@context'];
  return '@propagate' in context || (inner !== undefined && setsPropagate(inner));
}

/**
 * Whether a list of contexts may be processed one context at a time. jsonld processes a list in one
 * call whose cache entries share one list of what processing reported, so a context's refusal was kept
 * with the contexts before it: after `[credentials v2, {"@reserved": …}]` had been processed first,
 * every later credential was refused in safe mode. One at a time, each applied to the one before and
 * only the first with the list's `propagate`, gives what jsonld's loop gives for a list of fixed URLs,
 * resets and objects, of which only the first may say `@propagate`, and at most jsonld's 10 URLs.
 */
function splittable(list: unknown[]): boolean {
  if (list.filter((context) => typeof context === 'string').length > maxUrlsPerList) return false;
  return list.every((context, index) => {
    if (context === null) return true;
    if (typeof context === 'string') return isStatic(context);
    if (typeof context !== 'object' || Array.isArray(context)) return false;
    if (index > 0) return !setsPropagate(context);
    const { '@propagate': said, ...rest } = context as Record<string, unknown>;
    return (said === undefined || typeof said === 'boolean') && !setsPropagate(rest);
  });
}

function idOf(value: object): number {
  let id = ids.get(value);
  if (id === undefined) ids.set(value, (id = ++lastId));
  return id;
}

/** The local context's part of the key; undefined when the result may differ from call to call. */
function localKey(localCtx: unknown): string | undefined {
  if (typeof localCtx === 'string' || Array.isArray(localCtx)) {
    const urls: unknown[] = Array.isArray(localCtx) ? localCtx : [localCtx];
    const fixed = urls.length > 0 && urls.every((url) => typeof url === 'string' && isStatic(url));
    return fixed ? `urls:${JSON.stringify(localCtx)}` : undefined;
  }
  if (typeof localCtx !== 'object' || localCtx === null) return undefined;
  // A term's scoped context comes again with its kept document; a caller's inline context is a copy
  // made for one call: kept only from its second time on.
  if (!seenOnce.has(localCtx)) {
    seenOnce.add(localCtx);
    return undefined;
  }
  return `object:${idOf(localCtx)}`;
}

const processUncached = contextApi.process;
const initialContextOf = contextApi.getInitialContext;
const jsonldCopy = initialContextOf({}).clone;

contextApi.process = async (args: ProcessArguments): Promise<ActiveContext> => {
  const { activeCtx, localCtx, options, propagate = true, overrideProtected = false } = args;
  // `cycles` comes only with jsonld's checks of a scoped context, each on a fresh copy.
  const memoizable = state.enabled && args.cycles === undefined;
  if (memoizable && Array.isArray(localCtx) && localCtx.length > 1) {
    if (!splittable(localCtx)) {
      // jsonld's loop, on caches of its own, so that what it keeps wrongly stays with this call.
      const contextResolver = new ContextResolver({ sharedCache: new Map() });
      return processUncached({ ...args, options: { ...options, contextResolver } });
    }
    let context = activeCtx;
    for (const [index, one] of localCtx.entries())
      context = await contextApi.process({
        ...args,
        activeCtx: context,
        localCtx: one,
        ...(index === 0 ? {} : { propagate: true }),
      });
    return context;
  }
  const local = memoizable ? localKey(localCtx) : undefined;
  if (local === undefined) return processUncached(args);
  const flags = JSON.stringify([
    propagate,
    overrideProtected,
    options.base,
    options.processingMode,
  ]);
  const key = `${idOf(activeCtx)}|${local}|${flags}`;
  const found = kept.get(key);
  if (found !== undefined) {
    kept.delete(key);
    kept.set(key, found);
    state.hits++;
    // What processing reported (safe mode refuses on it), told again as jsonld's own cache does.
    if (options.eventHandler)
      for (const event of found.events) jsonldEvents.handleEvent({ event, options });
    return found.context;
  }
  const events: unknown[] = [];
  const capture: unknown[] = [
    ({ event, next }: { event: unknown; next: () => void }) => {
      events.push(event);
      next();
    },
  ];
  if (options.eventHandler) capture.push(options.eventHandler);
  const context = await processUncached({
    ...args,
    options: { ...options, eventHandler: capture },
  });
  kept.set(key, { context, events });
  if (kept.size > maxKept) kept.delete(kept.keys().next().value as string);
  return context;
};

/** jsonld's copy of a context, made once per context and kept while the context lives. */
function copyOf(context: ActiveContext): ActiveContext {
  let copy = copies.get(context);
  if (copy === undefined) copies.set(context, (copy = context.clone()));
  return copy;
}

function cloneActiveContext(this: ActiveContext): ActiveContext {
  if (!state.enabled) return jsonldCopy.call(this);
  const child = jsonldCopy.call({ ...this, previousContext: undefined });
  if (this.previousContext) child.previousContext = copyOf(this.previousContext);
  return child;
}

function revertToPreviousContext(this: ActiveContext): ActiveContext {
  if (!this.previousContext) return this;
  return state.enabled ? copyOf(this.previousContext) : this.previousContext.clone();
}

contextApi.getInitialContext = (options: Record<string, unknown>): ActiveContext => {
  const initial = initialContextOf(options);
  initial.clone = cloneActiveContext;
  initial.revertToPreviousContext = revertToPreviousContext;
  return initial;
};
