import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { queryErrors } from '../database/bounded-client.js';
import { poolOf } from '../database/bounded-pool.js';
import { Metrics } from './metrics.js';

/** The connection pool as Prometheus sees it at each scrape, and the queries that failed. */
@Injectable()
export class DatabaseMetrics {
  constructor(@InjectDataSource() dataSource: DataSource, metrics: Metrics) {
    const pool = () => poolOf(dataSource);
    metrics.gauge('db_pool_connections', 'Open connections of the pool', () => pool().totalCount);
    metrics.gauge(
      'db_pool_idle_connections',
      'Idle connections of the pool',
      () => pool().idleCount,
    );
    metrics.gauge(
      'db_pool_waiting_requests',
      'Queries waiting for a connection of the pool',
      () => pool().waitingCount,
    );
    metrics.registry.registerMetric(queryErrors);
  }
}
