import { Logger } from '@nestjs/common';
import { type DataSource } from 'typeorm';
import { poolOf } from './bounded-pool.js';
import { isStalePlan } from './connection-errors.js';

const logger = new Logger('StalePlanRetry');

/**
 * Runs `read` (one statement outside a transaction) again when PostgreSQL refused its prepared plan
 * because a column it reads changed type (another instance's migration): the bounded client drops each
 * such connection (bounded-client.ts), so one more try than the pool holds connections reaches one that
 * prepares the statement anew, unless the schema changes again meanwhile. For the paths that must not
 * answer 503 then (`GET /did`, a delivered webhook's record); elsewhere the request is answered 503
 * with Retry-After (docs/operations.md).
 */
export async function retriedOnStalePlan<T>(
  dataSource: DataSource,
  name: string,
  read: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const cause = (error as { driverError?: unknown }).driverError ?? error;
      if (!isStalePlan(cause) || attempt >= (poolOf(dataSource).options.max ?? 10)) throw error;
      logger.warn(`${name}: the schema changed under its plan; trying again on another connection`);
    }
  }
}
