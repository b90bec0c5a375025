import { DomainException } from '../../common/problem/domain.exception.js';

/** The issuer URL cannot be one (a refused scheme, a query, an address the service may not reach). */
export function issuerRefused(message: string): DomainException {
  return new DomainException('VALIDATION_FAILED', `The issuer ${message}.`, [
    { field: 'issuer', message },
  ]);
}

/** The discovery document could not be read or is not one this client can use: nothing was stored. */
export function discoveryFailed(message: string): DomainException {
  return new DomainException(
    'LOGIN_PROVIDER_DISCOVERY_FAILED',
    `The login provider was not saved: ${message.slice(0, 500)}.`,
    [{ field: 'issuer', message: 'its discovery document is not usable' }],
  );
}
