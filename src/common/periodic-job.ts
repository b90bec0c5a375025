/**
 * A task run every `intervalMs` while the app runs: a run that outlasts the interval is not overtaken
 * by the next, a failure is reported and the next run tries again, the schedule alone never keeps the
 * process alive, and stopping waits for the run in progress. The one way the service runs
 * housekeeping (purges, retention).
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly run: () => Promise<void>,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  get scheduled(): boolean {
    return this.timer !== undefined;
  }

  start(): void {
    this.timer ??= setInterval(() => this.runOnce(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private runOnce(): void {
    if (this.running !== undefined) return;
    this.running = this.run()
      .catch(this.onFailure)
      .finally(() => {
        this.running = undefined;
      });
  }
}
