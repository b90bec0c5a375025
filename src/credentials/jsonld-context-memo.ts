import contextApi, { type ActiveContext, type ProcessArguments } from 'jsonld/lib/context.js';
import jsonldEvents from 'jsonld/lib/events.js';
import jsonldUtil from 'jsonld/lib/util.js';

/*
 * jsonld 9 reaches into here; the one place the service does (docs/performance.md, "JSON-LD contexts").
 *
 * A type-scoped context (every typed node of a VC 2.0 credential: the credential, its subject, its
 * status entry) does not propagate, so jsonld processes it on a fresh copy of the active context, and
 * going down a level reverts to another fresh copy. Its own cache of processed contexts is keyed by the
 * active context object, so with a new copy at every node it never hits: the same contexts are processed
 * and deep-copied again at every node of every credential. Here the result of processing is kept per
 * active context, local context and flags, and a reverted context is the previous context itself rather
 * than a copy, so that the same keys recur. jsonld never changes an active context after making it (it
 * copies one before defining terms in it), which its own cache relies on too; so sharing one is safe.
 * This must run before jsonld's other modules load: they take `process` and `getInitialContext` from
 * this module's exports when they load (main.ts and the Jest set-up import it first).
 */

/** Local contexts kept per active context, by URL or list of URLs; objects are kept by identity. */
const maxUrlKeysPerContext = 64;

interface Processed {
  context: ActiveContext;
  events: unknown[];
}

/** Per active context: by local context, then by the flags that change the result. */
const memo = new WeakMap<
  ActiveContext,
  { urls: Map<string, Map<string, Processed>>; objects: WeakMap<object, Map<string, Processed>> }
>();

const state = { enabled: true, hits: 0 };

/** For the tests: on (the default) or jsonld's own behaviour, and how often the memo answered. */
export const jsonLdContextMemo = {
  get hits(): number {
    return state.hits;
  },
  setEnabled(enabled: boolean): void {
    state.enabled = enabled;
  },
};

const processUncached = contextApi.process;
const initialContextOf = contextApi.getInitialContext;

function byLocalContext(
  activeCtx: ActiveContext,
  localCtx: unknown,
): Map<string, Processed> | undefined {
  const key =
    typeof localCtx === 'string'
      ? localCtx
      : Array.isArray(localCtx) && localCtx.every((entry) => typeof entry === 'string')
        ? localCtx.join('\n')
        : undefined;
  if (key === undefined && (typeof localCtx !== 'object' || localCtx === null)) return undefined;
  let entry = memo.get(activeCtx);
  if (entry === undefined) {
    entry = { urls: new Map(), objects: new WeakMap() };
    memo.set(activeCtx, entry);
  }
  if (key === undefined) {
    let byFlags = entry.objects.get(localCtx as object);
    if (byFlags === undefined)
      entry.objects.set(localCtx as object, (byFlags = new Map<string, Processed>()));
    return byFlags;
  }
  let byFlags = entry.urls.get(key);
  if (byFlags === undefined) {
    if (entry.urls.size >= maxUrlKeysPerContext) entry.urls.clear();
    entry.urls.set(key, (byFlags = new Map<string, Processed>()));
  }
  return byFlags;
}

contextApi.process = async (args: ProcessArguments): Promise<ActiveContext> => {
  const { activeCtx, localCtx, options, propagate = true, overrideProtected = false } = args;
  const byFlags = state.enabled ? byLocalContext(activeCtx, localCtx) : undefined;
  if (byFlags === undefined) return processUncached(args);
  const flags = `${propagate}|${overrideProtected}|${String(options.base)}|${String(options.processingMode)}`;
  const kept = byFlags.get(flags);
  if (kept !== undefined) {
    state.hits++;
    // What processing reported (safe mode refuses on it), told again as jsonld's own cache does.
    if (options.eventHandler !== undefined)
      for (const event of kept.events) jsonldEvents.handleEvent({ event, options });
    return kept.context;
  }
  const events: unknown[] = [];
  const capture: unknown[] = [
    ({ event, next }: { event: unknown; next: () => void }) => {
      events.push(event);
      next();
    },
  ];
  if (options.eventHandler !== undefined) capture.push(options.eventHandler);
  const context = await processUncached({
    ...args,
    options: { ...options, eventHandler: capture },
  });
  byFlags.set(flags, { context, events });
  return context;
};

/** jsonld's own copy, except that the previous context is shared, not copied (see above). */
function cloneActiveContext(this: ActiveContext): ActiveContext {
  const child: ActiveContext = {
    mappings: jsonldUtil.clone(this.mappings),
    clone: this.clone,
    inverse: null,
    getInverse: this.getInverse,
    protected: jsonldUtil.clone(this.protected),
    revertToPreviousContext: this.revertToPreviousContext,
  };
  if (this.previousContext)
    child.previousContext = state.enabled ? this.previousContext : this.previousContext.clone();
  for (const key of ['@base', '@language', '@vocab'] as const)
    if (key in this) child[key] = this[key];
  return child;
}

function revertToPreviousContext(this: ActiveContext): ActiveContext {
  if (this.previousContext === undefined) return this;
  return state.enabled ? this.previousContext : this.previousContext.clone();
}

contextApi.getInitialContext = (options: Record<string, unknown>): ActiveContext => {
  const initial = initialContextOf(options);
  initial.clone = cloneActiveContext;
  initial.revertToPreviousContext = revertToPreviousContext;
  return initial;
};
