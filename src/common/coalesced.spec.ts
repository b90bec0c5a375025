import { Coalesced } from './coalesced.js';

/** A write that records each batch and finishes only when told to. */
function gatedWrite() {
  const batches: number[][] = [];
  const pending: { finish: (fail?: boolean) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push(items);
      pending.push({
        finish: (fail) =>
          fail === true
            ? reject(new Error(`batch ${items.join(',')}`))
            : resolve(items.map((item) => `done ${item}`)),
      });
    });
  return { write, batches, finishNext: (fail?: boolean) => pending.shift()!.finish(fail) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(Coalesced.name, () => {
  it('writes the first item at once and what came meanwhile together, each caller its own result', async () => {
    const gate = gatedWrite();
    const coalesced = new Coalesced(gate.write, 10);
    const first = coalesced.add(1);
    expect(gate.batches).toEqual([[1]]);
    const later = [coalesced.add(2), coalesced.add(3), coalesced.add(4)];
    await settle();
    expect(gate.batches).toEqual([[1]]);
    gate.finishNext();
    await settle();
    expect(gate.batches).toEqual([[1], [2, 3, 4]]);
    gate.finishNext();
    expect(await first).toBe('done 1');
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('writes at most maxBatch items at once', async () => {
    const gate = gatedWrite();
    const coalesced = new Coalesced(gate.write, 2);
    const answers = [1, 2, 3, 4, 5, 6].map((item) => coalesced.add(item));
    gate.finishNext();
    await settle();
    gate.finishNext();
    await settle();
    gate.finishNext();
    await settle();
    gate.finishNext();
    expect(await Promise.all(answers)).toHaveLength(6);
    expect(gate.batches).toEqual([[1], [2, 3], [4, 5], [6]]);
  });

  it("fails only a failed write's callers, and goes on with the next", async () => {
    const gate = gatedWrite();
    const coalesced = new Coalesced(gate.write, 10);
    const first = expect(coalesced.add(1)).rejects.toThrow('batch 1');
    const second = coalesced.add(2);
    gate.finishNext(true);
    await settle();
    gate.finishNext();
    await first;
    expect(await second).toBe('done 2');
    // Idle again: the next item is written at once.
    const third = coalesced.add(3);
    expect(gate.batches).toEqual([[1], [2], [3]]);
    gate.finishNext();
    expect(await third).toBe('done 3');
  });

  it('fails the callers of a write that answers a result short', async () => {
    const coalesced = new Coalesced<number, string>(() => Promise.resolve([]), 10);
    await expect(coalesced.add(1)).rejects.toThrow('0 results for 1 items');
  });
});
