import { keysInUse, oneAtATime } from './one-at-a-time.js';

/** A task that runs until `finish` is called, recording when it starts. */
function gate(log: string[], name: string) {
  let finish: (fail?: boolean) => void = () => undefined;
  const task = () =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      finish = (fail) => (fail === true ? reject(new Error(name)) : resolve(name));
    });
  return { task, finish: (fail?: boolean) => finish(fail) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(oneAtATime.name, () => {
  it('starts a task of a key only once the one before it settled, failed or not', async () => {
    const log: string[] = [];
    const first = gate(log, 'first');
    const second = gate(log, 'second');
    const third = gate(log, 'third');
    const answers = [
      oneAtATime('tenant-a', first.task),
      oneAtATime('tenant-a', second.task),
      oneAtATime('tenant-a', third.task),
    ];
    await settle();
    expect(log).toEqual(['start first']);
    first.finish(true);
    await settle();
    expect(log).toEqual(['start first', 'start second']);
    second.finish();
    await settle();
    third.finish();
    expect(await Promise.allSettled(answers)).toEqual([
      { status: 'rejected', reason: new Error('first') },
      { status: 'fulfilled', value: 'second' },
      { status: 'fulfilled', value: 'third' },
    ]);
  });

  it('runs tasks of different keys side by side and forgets a key once its queue is empty', async () => {
    const log: string[] = [];
    const a = gate(log, 'a');
    const b = gate(log, 'b');
    const answers = [oneAtATime('tenant-a', a.task), oneAtATime('tenant-b', b.task)];
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    expect(keysInUse()).toBe(2);
    a.finish();
    b.finish();
    expect(await Promise.all(answers)).toEqual(['a', 'b']);
    await settle();
    expect(keysInUse()).toBe(0);
  });
});
