import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readOrCreateFile } from './create-file-once.js';

/** A thread that reads `file` over and over until it holds `size` bytes, counting shorter reads. */
const reader = `
const { readFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
let reads = 0, short = 0;
parentPort.postMessage('reading');
for (;;) {
  let length;
  try { length = readFileSync(workerData.file).length; } catch { continue; }
  reads++;
  if (length === workerData.size) break;
  short++;
}
parentPort.postMessage({ reads, short });
`;

describe(readOrCreateFile.name, () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'create-once-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('creates the file once (0600) and reads it back afterwards without creating again', () => {
    const file = join(directory, 'secret');
    let made = 0;
    const create = () => `made ${++made}`;
    expect(readOrCreateFile(file, create)).toBe('made 1');
    expect(readOrCreateFile(file, create)).toBe('made 1');
    expect(made).toBe(1);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(directory)).toEqual(['secret']);
  });

  it('tightens an existing file to 0600 and keeps its content', () => {
    const file = join(directory, 'secret');
    writeFileSync(file, 'kept', { mode: 0o644 });
    expect(readOrCreateFile(file, () => 'new')).toBe('kept');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('reads what another process created first, and leaves no temporary file behind', () => {
    const file = join(directory, 'secret');
    const created = readOrCreateFile(file, () => {
      writeFileSync(file, 'theirs');
      return 'ours';
    });
    expect(created).toBe('theirs');
    expect(readdirSync(directory)).toEqual(['secret']);
  });

  it('never lets a reader in another thread see the file before its content is complete', async () => {
    const file = join(directory, 'secret');
    const size = 64 * 1024 * 1024;
    const worker = new Worker(reader, { eval: true, workerData: { file, size } });
    const messages: unknown[] = [];
    const done = new Promise<{ reads: number; short: number }>((resolve, reject) => {
      worker.on('message', (message) => {
        messages.push(message);
        if (message !== 'reading') resolve(message as { reads: number; short: number });
      });
      worker.on('error', reject);
    });
    await new Promise<void>((resolve) => worker.once('message', () => resolve()));
    readOrCreateFile(file, () => 'x'.repeat(size));
    const result = await done;
    await worker.terminate();
    expect(result.reads).toBeGreaterThanOrEqual(1);
    expect(result.short).toBe(0);
  });
});
