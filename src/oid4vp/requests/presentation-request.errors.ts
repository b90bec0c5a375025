import { DomainException } from '../../common/problem/domain.exception.js';
import { type FieldError } from '../../common/problem/problem.js';
import { requestLimits } from './request-limits.js';

export function requestNotFound(id: string): DomainException {
  return new DomainException(
    'PRESENTATION_REQUEST_NOT_FOUND',
    `The tenant has no presentation request '${id}'.`,
  );
}

export function requestNotPending(
  id: string,
  status: string,
  what = 'only a pending request is drawn as a QR code',
): DomainException {
  return new DomainException(
    'PRESENTATION_REQUEST_NOT_PENDING',
    `The presentation request '${id}' is ${status}: ${what}.`,
  );
}

/** A DC API request has no link; a redirect request is answered at its response_uri. */
export function requestOfOtherMode(id: string, why: string): DomainException {
  return new DomainException(
    'PRESENTATION_REQUEST_OTHER_MODE',
    `The presentation request '${id}' ${why}.`,
  );
}

export function requestsFull(): DomainException {
  return new DomainException(
    'PRESENTATION_REQUESTS_LIMIT_REACHED',
    `A tenant keeps at most ${requestLimits.pendingPerTenant} pending presentation requests; delete one or wait for one to end.`,
  );
}

/** What the DTO's decorators cannot state: the DCQL query's shape and formats. */
export function requestInvalid(errors: FieldError[]): DomainException {
  return new DomainException(
    'VALIDATION_FAILED',
    errors.map((error) => `${error.field} ${error.message}`).join('; '),
    errors,
  );
}

/** The tenant's certificate cannot make the client id asked for (OpenID4VP 1.0 §5.9.3). */
export function clientIdPrefixUnavailable(prefix: string, why: string): DomainException {
  return new DomainException(
    'CLIENT_ID_PREFIX_UNAVAILABLE',
    `The tenant cannot be an ${prefix} client: ${why} Ask for decentralized_identifier, or give the tenant a certificate that fits (docs/oid4vp.md).`,
  );
}
