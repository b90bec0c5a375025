import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { readOrCreateFile } from './create-file-once.js';

/** A thread that reads `file` over and over until it holds `size` bytes, counting shorter reads. */
const reader = `
const { readFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
let short = 0;
parentPort.postMessage('reading');
for (;;) {
  let length;
  try { length = readFileSync(workerData.file).length; } catch { continue; }
  if (length === workerData.size) break;
  short++;
}
parentPort.postMessage({ short });
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

  it('links only a complete file into place, and only while none is there', () => {
    const file = join(directory, 'secret');
    const content = 'x'.repeat(100_000);
    const linked: string[] = [];
    const created = readOrCreateFile(
      file,
      () => content,
      (from, to) => {
        expect(existsSync(to)).toBe(false);
        linked.push(readFileSync(from, 'utf8'));
        linkSync(from, to);
      },
    );
    expect(linked).toEqual([content]);
    expect(created).toBe(content);
    expect(readdirSync(directory)).toEqual(['secret']);
  });

  it('creates the file exclusively where the filesystem has no hard links', () => {
    const file = join(directory, 'secret');
    const refuse = () => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    };
    expect(readOrCreateFile(file, () => 'made', refuse)).toBe('made');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(directory)).toEqual(['secret']);
    expect(readOrCreateFile(file, () => 'again', refuse)).toBe('made');
  });

  it('leaves no temporary file behind when the link fails otherwise', () => {
    const file = join(directory, 'secret');
    const fail = () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    expect(() => readOrCreateFile(file, () => 'made', fail)).toThrow('no space left');
    expect(readdirSync(directory)).toEqual([]);
  });

  it('never lets a reader in another thread see the file before its content is complete', async () => {
    const file = join(directory, 'secret');
    const size = 64 * 1024 * 1024;
    const worker = new Worker(reader, { eval: true, workerData: { file, size } });
    try {
      const done = new Promise<{ short: number }>((resolve, reject) => {
        worker.on('message', (message) => {
          if (message !== 'reading') resolve(message as { short: number });
        });
        worker.on('error', reject);
      });
      await new Promise<void>((resolve) => worker.once('message', () => resolve()));
      readOrCreateFile(file, () => 'x'.repeat(size));
      expect((await done).short).toBe(0);
    } finally {
      await worker.terminate();
    }
  });
});
