import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * Reads `file`, creating it with `create()` (mode 0600) when it is missing. Processes that share the
 * directory and start at once all read the same complete content: the content is written to a private
 * temporary file first and then hard-linked into place, which is atomic and never replaces a file that
 * is already there (a file created with 'wx' is visible, empty, before its content is written).
 */
export function readOrCreateFile(file: string, create: () => string): string {
  try {
    chmodSync(file, 0o600);
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temporary = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, create(), { mode: 0o600, flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    // EEXIST: another process linked its complete file first; we read theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8');
}
