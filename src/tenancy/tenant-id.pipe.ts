import { Injectable, type PipeTransform } from '@nestjs/common';
import { DomainException } from '../common/problem/domain.exception.js';
import { tenantIdPattern, tenantIdRule } from './tenant-id.js';

/** Validates a tenant id taken from the path. */
@Injectable()
export class TenantIdPipe implements PipeTransform<unknown, string> {
  transform(value: unknown): string {
    if (typeof value !== 'string' || !tenantIdPattern.test(value)) {
      throw new DomainException(
        'VALIDATION_FAILED',
        `The tenant id in the path must be ${tenantIdRule}.`,
        [{ field: 'id', message: `must be ${tenantIdRule}` }],
      );
    }
    return value;
  }
}
