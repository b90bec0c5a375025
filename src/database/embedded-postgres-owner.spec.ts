import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postmasterRuns } from './embedded-postgres-owner.js';

describe("a cluster's postmaster.pid", () => {
  const directory = mkdtempSync(join(tmpdir(), 'cluster-'));
  const file = join(directory, 'postmaster.pid');

  it('names a PostgreSQL that runs when its first line is a live pid', async () => {
    // PostgreSQL writes the pid first, then the data directory, start time, port and more.
    writeFileSync(file, `${process.pid}\n${directory}\n1795600000\n5432\n`);
    await expect(postmasterRuns(directory)).resolves.toBe(true);
  });

  it('names none when the pid is gone, the line is not a pid, or there is no file', async () => {
    writeFileSync(file, `2147483646\n${directory}\n`);
    await expect(postmasterRuns(directory)).resolves.toBe(false);
    writeFileSync(file, `${directory}\n${process.pid}\n`);
    await expect(postmasterRuns(directory)).resolves.toBe(false);
    await expect(postmasterRuns(join(directory, 'missing'))).resolves.toBe(false);
  });
});
