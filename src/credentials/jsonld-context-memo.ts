import { LRUCache } from 'lru-cache';
import contextApi, { type ActiveContext, type ProcessArguments } from 'jsonld/lib/context.js';
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

/** Processed contexts kept, each up to a few hundred KB (a copy of every term of its contexts). */
const maxKept = 256;

interface Processed {
  context: ActiveContext;
  events: unknown[];
}

const state = { enabled: true, hits: 0 };
const kept = new LRUCache<string, Processed>({ max: maxKept });
/** The contexts of the allowlist: only these URLs name the same document at every call. */
const staticUrls = new Set<string>();
const copies = new WeakMap<ActiveContext, ActiveContext>();
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
  for (const [url, document] of contexts) if (!setsPropagate(document)) staticUrls.add(url);
}

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
 * every later credential was refused in safe mode. One at a time gives the same context (each is applied
 * to the one before, `propagate` unchanged) unless a context in it says `@propagate`.
 */
function splittable(list: unknown[]): boolean {
  return list.every((context) =>
    typeof context === 'string' ? staticUrls.has(context) : !setsPropagate(context),
  );
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
    const fixed = urls.every((url) => typeof url === 'string' && staticUrls.has(url));
    return fixed ? `urls:${JSON.stringify(localCtx)}` : undefined;
  }
  // A term's scoped context, from a kept document; a caller's inline context is copied, so never hits.
  return typeof localCtx === 'object' && localCtx !== null ? `object:${idOf(localCtx)}` : undefined;
}

const processUncached = contextApi.process;
const initialContextOf = contextApi.getInitialContext;
const jsonldCopy = initialContextOf({}).clone;

contextApi.process = async (args: ProcessArguments): Promise<ActiveContext> => {
  const { activeCtx, localCtx, options, propagate = true, overrideProtected = false } = args;
  // `cycles` comes only with jsonld's checks of a scoped context, each on a fresh copy.
  const ours = state.enabled && args.cycles === undefined;
  if (ours && Array.isArray(localCtx) && localCtx.length > 1 && splittable(localCtx)) {
    let context = activeCtx;
    for (const one of localCtx)
      context = await contextApi.process({ ...args, activeCtx: context, localCtx: one });
    return context;
  }
  const local = ours ? localKey(localCtx) : undefined;
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
