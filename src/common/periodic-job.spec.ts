import { jest } from '@jest/globals';
import { PeriodicJob } from './periodic-job.js';

describe('a periodic job', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval, never two runs at once, and stopping waits for the run in progress', async () => {
    let finish: () => void = () => undefined;
    let runs = 0;
    const job = new PeriodicJob(
      1000,
      () => {
        runs++;
        return new Promise<void>((resolve) => (finish = resolve));
      },
      () => undefined,
    );
    job.start();
    expect(job.scheduled).toBe(true);
    jest.advanceTimersByTime(1000);
    expect(runs).toBe(1);
    jest.advanceTimersByTime(3000); // still running: not overtaken
    expect(runs).toBe(1);
    let stopped = false;
    const stopping = job.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
    expect(job.scheduled).toBe(false);
    jest.advanceTimersByTime(5000);
    expect(runs).toBe(1);
  });

  it('reports a failed run and tries again at the next interval', async () => {
    const failures: unknown[] = [];
    let runs = 0;
    const job = new PeriodicJob(
      1000,
      () => {
        runs++;
        return Promise.reject(new Error('database gone'));
      },
      (error) => failures.push(error),
    );
    job.start();
    jest.advanceTimersByTime(1000);
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(2);
    expect(failures).toHaveLength(2);
    await job.stop();
  });
});
