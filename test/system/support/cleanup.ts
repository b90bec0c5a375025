import { chmodSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * What a test file started or created, undone in reverse order in afterAll, also after a failure. Every
 * step runs even if an earlier one throws; the first error is rethrown at the end.
 */
export class Cleanup {
  private readonly steps: { name: string; run: () => Promise<void> | void }[] = [];

  add(name: string, run: () => Promise<void> | void): void {
    this.steps.push({ name, run });
  }

  /** A fresh temporary directory (mode 0755: the postgres and nginx workers must enter it), removed at the end. */
  tempDir(prefix: string): string {
    const directory = mkdtempSync(join(tmpdir(), `agent-system-${prefix}-`));
    chmodSync(directory, 0o755);
    this.add(`remove ${directory}`, () => rm(directory, { recursive: true, force: true }));
    return directory;
  }

  async run(): Promise<void> {
    let firstError: Error | undefined;
    while (this.steps.length > 0) {
      const step = this.steps.pop()!;
      try {
        await step.run();
      } catch (error) {
        firstError ??= new Error(`cleanup step "${step.name}" failed`, { cause: error });
      }
    }
    if (firstError !== undefined) throw firstError;
  }
}
