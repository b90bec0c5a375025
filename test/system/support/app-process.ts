import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Cleanup } from './cleanup.js';
import { freePort } from './ports.js';

/** The repository root: the compiled service is `dist/src/main.js` under it (`npm run build`). */
export const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url));
const mainScript = fileURLToPath(new URL('../../../dist/src/main.js', import.meta.url));

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppProcessOptions {
  /** The service's environment on top of PATH and HOME (nothing else leaks in from the test runner). */
  env: Record<string, string>;
  /** Working directory; a `.env` there would be read, so tests give a fresh temporary directory. */
  cwd: string;
  /** Named in failure messages. */
  name?: string;
  port?: number;
}

/**
 * One `node dist/src/main.js` process, as `npm start` runs it, with its output captured (JSON lines on
 * stdout) for assertions and failure messages.
 */
export class AppProcess {
  readonly output: string[] = [];
  readonly exited: Promise<ExitStatus>;
  private exitStatus: ExitStatus | undefined;

  private constructor(
    readonly name: string,
    readonly port: number,
    readonly child: ChildProcess,
  ) {
    let partial = '';
    const collect = (chunk: Buffer) => {
      partial += chunk.toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      this.output.push(...lines.filter((line) => line !== ''));
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        if (partial !== '') this.output.push(partial);
        this.exitStatus = { code, signal };
        resolve(this.exitStatus);
      });
    });
  }

  /** Starts the process without waiting for it; `cleanup` kills it at the end if it still runs. */
  static async spawn(options: AppProcessOptions, cleanup: Cleanup): Promise<AppProcess> {
    if (!existsSync(mainScript)) throw new Error(`${mainScript} is missing: run npm run build`);
    const port = options.port ?? (await freePort());
    // As `npm start` runs it (package.json).
    const child = spawn(process.execPath, ['--heap-growing-percent=50', mainScript], {
      cwd: options.cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        PORT: String(port),
        // Several instances run side by side, under load: metrics and limits where a test asks.
        METRICS_PORT: '0',
        RATE_LIMIT_CALLER_PER_MINUTE: '1000000',
        RATE_LIMIT_IP_PER_MINUTE: '1000000',
        RATE_LIMIT_CALLER_BURST: '0',
        RATE_LIMIT_IP_BURST: '0',
        HTTP_MAX_IN_FLIGHT_TOKEN: '0',
        HTTP_MAX_IN_FLIGHT_WALLET: '0',
        HTTP_MAX_IN_FLIGHT_API: '0',
        // One process runs the tests' clients and the service, on a busy machine: the wait of old.
        DATABASE_POOL_ACQUIRE_TIMEOUT_MS: '5000',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const app = new AppProcess(options.name ?? `app:${port}`, port, child);
    cleanup.add(`stop ${app.name}`, () => app.stop());
    return app;
  }

  /** Starts the process and waits until /ctrl/health/ready answers 200. */
  static async start(
    options: AppProcessOptions,
    cleanup: Cleanup,
    timeoutMs = 60_000,
  ): Promise<AppProcess> {
    const app = await AppProcess.spawn(options, cleanup);
    await app.waitUntilReady(timeoutMs);
    return app;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.exitStatus === undefined;
  }

  async waitUntilReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) {
        throw new Error(`${this.name} exited (${JSON.stringify(this.exitStatus)}):\n${this.log()}`);
      }
      try {
        const response = await fetch(`${this.url}/ctrl/health/ready`, {
          signal: AbortSignal.timeout(2_000),
        });
        if (response.status === 200) return;
      } catch {
        // Not listening yet.
      }
      await sleep(200);
    }
    throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.log()}`);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Waits for the exit, failing after `timeoutMs`. */
  async waitForExit(timeoutMs: number): Promise<ExitStatus> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.name} did not exit within ${timeoutMs} ms:\n${this.log()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within 15 s. Idempotent. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.signal('SIGTERM');
    try {
      await this.waitForExit(15_000);
    } catch {
      this.signal('SIGKILL');
      await this.exited;
    }
  }

  /** The captured output, for failure messages (last lines only). */
  log(lines = 40): string {
    return this.output.slice(-lines).join('\n');
  }

  /** Log lines parsed as JSON (non-JSON lines are skipped). */
  logRecords(): Record<string, unknown>[] {
    const records: Record<string, unknown>[] = [];
    for (const line of this.output) {
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === 'object' && parsed !== null)
          records.push(parsed as Record<string, unknown>);
      } catch {
        // Not a log record.
      }
    }
    return records;
  }
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

/** Polls `check` until it returns a value other than undefined, failing after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}
