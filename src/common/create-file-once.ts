import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

/** Filesystems without hard links (SMB, FAT, some FUSE mounts) refuse `link` with one of these. */
const noHardLinks = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Reads `file`, creating it with `create()` (mode 0600) when it is missing. Processes that share the
 * directory and start at once all read the same complete content: the content is written to a private
 * temporary file, flushed to disk, and then hard-linked into place, which is atomic and never replaces
 * a file that is already there (a file created with 'wx' is visible, empty, before its content is
 * written). `link` is for tests.
 */
export function readOrCreateFile(
  file: string,
  create: () => string,
  link: (from: string, to: string) => void = linkSync,
): string {
  try {
    // Tightened only when needed: a private file owned by another user is still read.
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const content = create();
  const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    writeDurably(temporary, content);
    link(temporary, file);
    fsyncDirectory(dirname(file));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    // EEXIST: another process linked its complete file first; we read theirs.
    if (noHardLinks.has(code)) createExclusively(file, content);
    else if (code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  return readFileSync(file, 'utf8');
}

/** On disk before it is linked: a crash right after the first start must not leave an empty key. */
function writeDurably(path: string, content: string): void {
  const descriptor = openSync(path, 'wx', 0o600);
  try {
    writeSync(descriptor, content);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The new name on disk too; best effort, since some filesystems cannot sync a directory. */
function fsyncDirectory(directory: string): void {
  try {
    const descriptor = openSync(directory, 'r');
    try {
      fsyncSync(descriptor);
    } finally {
      closeSync(descriptor);
    }
  } catch {
    // The file itself is on disk; only its name may wait for the next sync.
  }
}

/** Without hard links: created exclusively, as before, with the short window that leaves open. */
function createExclusively(file: string, content: string): void {
  try {
    writeFileSync(file, content, { mode: 0o600, flag: 'wx', flush: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
