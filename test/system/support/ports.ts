import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * Ports are drawn below Linux's ephemeral range (32768-60999): a port the OS hands out for `listen(0)`
 * may be taken by another test's outgoing connection before the process that was given it binds it.
 */
const lowest = 20_000;
const highest = 32_767;

/** Whether 127.0.0.1:`port` can be bound right now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** A port that is free on 127.0.0.1 right now and that no outgoing connection will take. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = randomInt(lowest, highest + 1);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${lowest} and ${highest} after 100 draws`);
}
