import { DomainException } from '../common/problem/domain.exception.js';

export function tenantNotFound(id: string): DomainException {
  return new DomainException('TENANT_NOT_FOUND', `No tenant with id '${id}'.`);
}
