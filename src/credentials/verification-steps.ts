import { setImmediate as nextTurn } from 'node:timers/promises';

/** The step last queued; each waits for the one before it. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `step` (a JSON-LD expansion, one proof's canonicalization and signature check) after every
 * step queued before it, starting on a turn of the event loop of its own. However many requests
 * verify at once, each turn runs at most one step's slice of work, so every other request is
 * served between two slices (docs/credentials.md, "Limits"). A step must not queue another.
 */
export function oneStepAtATime<T>(step: () => Promise<T>): Promise<T> {
  const result = queue.then(async () => {
    await nextTurn();
    return step();
  });
  queue = result.catch(() => undefined);
  return result;
}
