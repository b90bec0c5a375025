/** The last task queued under each key, settled or not; a key leaves once its queue is empty. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` once every task queued before it under the same key has settled, in this process;
 * tasks under other keys run side by side. A failed task does not stop the ones after it. For work
 * that the database serialises anyway (a per-tenant cap's count): waiting here holds no connection and
 * no lock, so only one of an instance's requests at a time waits for the database's lock, and a burst
 * cannot queue there past its lock timeout.
 */
export function oneAtATime<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const result = previous.then(task);
  const tail = result.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, tail);
  void tail.then(() => {
    if (tails.get(key) === tail) tails.delete(key);
  });
  return result;
}

/** How many keys have tasks queued or running (for tests: an emptied queue leaves nothing behind). */
export function keysInUse(): number {
  return tails.size;
}
