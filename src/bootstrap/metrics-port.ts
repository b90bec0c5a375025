import { type Server } from 'node:http';
import { type AppConfig } from '../config/app-config.js';
import { type Metrics } from '../observability/metrics.js';
import { startMetricsServer } from '../observability/metrics-server.js';

/** The management port serving /metrics; none when METRICS_PORT is 0. */
export async function openMetricsPort(
  config: AppConfig,
  metrics: Metrics,
): Promise<{ server: Server; port: number } | undefined> {
  if (config.metricsPort === 0) return undefined;
  return startMetricsServer(
    metrics.registry,
    config.metricsPort === 'any' ? 0 : config.metricsPort,
    config.host,
  ).catch((error: unknown) => {
    throw new Error(`The metrics port ${config.metricsPort} cannot be opened`, { cause: error });
  });
}
