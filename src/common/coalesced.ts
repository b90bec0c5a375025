/**
 * Writes that callers would each send on their own, sent together: the first goes at once, and those
 * added while a write is under way wait for it and go in the next one (at most `maxBatch` each). Each
 * caller's promise settles with its own item's result, or with its write's error. The queue holds only
 * what the callers are awaiting, so it is as bounded as they are.
 */
export class Coalesced<T, R> {
  private readonly queue: {
    item: T;
    resolve: (result: R) => void;
    reject: (error: unknown) => void;
  }[] = [];
  private writing = false;

  constructor(
    /** Writes the items, answering one result per item in their order. */
    private readonly write: (items: T[]) => Promise<R[]>,
    private readonly maxBatch: number,
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      try {
        const results = await this.write(batch.map((entry) => entry.item));
        if (results.length !== batch.length) {
          throw new Error(`${results.length} results for ${batch.length} items`);
        }
        batch.forEach((entry, index) => entry.resolve(results[index]));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.writing = false;
  }
}
