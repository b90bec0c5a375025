import { DomainException } from '../common/problem/domain.exception.js';
import { type FieldError } from '../common/problem/problem.js';
import { configurationLimits } from './credential-configuration-limits.js';

export function configurationNotFound(id: string): DomainException {
  return new DomainException(
    'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    `The tenant has no credential configuration '${id}'.`,
  );
}

export function configurationExists(id: string): DomainException {
  return new DomainException(
    'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS',
    `The tenant has a credential configuration '${id}' already.`,
    [{ field: 'id', message: 'is taken' }],
  );
}

export function configurationsFull(): DomainException {
  const most = configurationLimits.perTenant;
  return new DomainException(
    'CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED',
    `A tenant keeps at most ${most} credential configurations; delete one first.`,
    [{ field: 'id', message: `would be configuration ${most + 1}; at most ${most}` }],
  );
}

/** The rules between fields that the DTO's decorators cannot state (format-dependent fields). */
export function configurationInvalid(errors: FieldError[]): DomainException {
  return new DomainException(
    'VALIDATION_FAILED',
    errors.map((error) => `${error.field} ${error.message}`).join('; '),
    errors,
  );
}
