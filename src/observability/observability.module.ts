import { Global, Module, type DynamicModule } from '@nestjs/common';
import { DatabaseMetrics } from './database-metrics.js';
import { Metrics } from './metrics.js';

/** The service's metrics, for every feature to count what it does. */
@Global()
@Module({})
export class ObservabilityModule {
  static register(metrics: Metrics): DynamicModule {
    return {
      module: ObservabilityModule,
      providers: [{ provide: Metrics, useValue: metrics }, DatabaseMetrics],
      exports: [Metrics],
    };
  }
}
