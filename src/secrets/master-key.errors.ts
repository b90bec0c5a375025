import { DomainException } from '../common/problem/domain.exception.js';

/**
 * A sealed value names a master key this instance was not given. Answered 503: the request is fine and
 * another instance (mid-rollout) may have the key; the key id goes to the log, not to the caller.
 */
export function masterKeyUnavailable(): DomainException {
  return new DomainException(
    'SERVICE_UNAVAILABLE',
    "The tenant's signing key is sealed under a master key this service is not configured with; the operator has to add it (see the service log). Try again later.",
    undefined,
    { 'Retry-After': '30' },
  );
}
