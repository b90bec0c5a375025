import { Global, Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { DatabaseMetrics } from './database-metrics.js';
import { HandlerSpansInterceptor } from './handler-spans.interceptor.js';
import { Metrics } from './metrics.js';

/** The service's metrics, for every feature to count what it does. */
@Global()
@Module({})
export class ObservabilityModule {
  static register(metrics: Metrics, options: { tracing: boolean }): DynamicModule {
    return {
      module: ObservabilityModule,
      providers: [
        { provide: Metrics, useValue: metrics },
        DatabaseMetrics,
        ...(options.tracing
          ? [{ provide: APP_INTERCEPTOR, useClass: HandlerSpansInterceptor }]
          : []),
      ],
      exports: [Metrics],
    };
  }
}
