import { DomainException } from '../common/problem/domain.exception.js';
import { trustedIssuerLimits } from './trusted-issuer-limits.js';

export function trustedIssuerNotFound(id: string): DomainException {
  return new DomainException(
    'TRUSTED_ISSUER_NOT_FOUND',
    `The tenant has no trusted issuer '${id}'.`,
  );
}

export function trustedIssuerExists(issuer: string): DomainException {
  return new DomainException(
    'TRUSTED_ISSUER_ALREADY_EXISTS',
    `'${issuer}' is already a trusted issuer of the tenant.`,
    [{ field: 'issuer', message: 'is already in the list' }],
  );
}

export function trustedIssuersFull(): DomainException {
  const most = trustedIssuerLimits.entries;
  return new DomainException(
    'TRUSTED_ISSUERS_LIMIT_REACHED',
    `A tenant keeps at most ${most} trusted issuers; delete one first.`,
    [{ field: 'issuer', message: `would be entry ${most + 1}; at most ${most}` }],
  );
}
