import { type Server } from 'node:http';
import { type Settings } from '../config/settings.js';
import { type Metrics } from '../observability/metrics.js';
import { startMetricsServer } from '../observability/metrics-server.js';
import { portRefusal } from './listen.js';

/** The management port serving /metrics; none when METRICS_PORT is 0. */
export async function openMetricsPort(
  settings: Settings,
  metrics: Metrics,
): Promise<{ server: Server; port: number } | undefined> {
  if (settings.METRICS_PORT === 0) return undefined;
  return startMetricsServer(
    metrics.registry,
    settings.METRICS_PORT === 'any' ? 0 : settings.METRICS_PORT,
    settings.listenHost,
  ).catch((error: unknown) => {
    const refusal = portRefusal(
      'METRICS_PORT',
      Number(settings.METRICS_PORT),
      settings.listenHost,
      error,
    );
    if (refusal !== error) throw refusal;
    throw new Error(`The metrics port ${settings.METRICS_PORT} cannot be opened`, { cause: error });
  });
}
