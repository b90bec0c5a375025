import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DomainException } from '../common/problem/domain.exception.js';

export interface HealthReport {
  status: 'ok';
  checks: Record<string, 'up'>;
}

const checkTimeoutMs = 2000;

@Injectable()
export class HealthService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async ready(): Promise<HealthReport> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.dataSource.query('SELECT 1'),
        new Promise((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('timeout')), checkTimeoutMs);
        }),
      ]);
    } catch {
      throw new DomainException('SERVICE_UNAVAILABLE', 'The database does not answer.', undefined, {
        'Retry-After': '5',
      });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ok', checks: { database: 'up' } };
  }
}
