import { DomainException } from '../../common/problem/domain.exception.js';
import { type FieldError } from '../../common/problem/problem.js';
import { offerLimits } from './offer-limits.js';

export function offerNotFound(id: string): DomainException {
  return new DomainException('OFFER_NOT_FOUND', `The tenant has no credential offer '${id}'.`);
}

/**
 * The public by-reference route: an unknown reference gets the generic words; one that named an offer
 * now closed says why (offer-closed.ts), under the same code and status.
 */
export function offerReferenceNotFound(closedBecause?: string): DomainException {
  return new DomainException(
    'OFFER_NOT_FOUND',
    closedBecause ?? 'There is no open credential offer here.',
  );
}

export function offerNotOpen(id: string, status: string): DomainException {
  return new DomainException(
    'OFFER_NOT_OPEN',
    `The credential offer '${id}' is ${status}: only an open offer (offered or accepted) can be withdrawn or drawn.`,
  );
}

export function offersFull(): DomainException {
  const most = offerLimits.openPerTenant;
  return new DomainException(
    'OFFERS_LIMIT_REACHED',
    `A tenant keeps at most ${most} open credential offers; withdraw one or wait for one to end.`,
  );
}

/** The rules the DTO's decorators cannot state: the claims against the configuration, the tx code. */
export function offerInvalid(errors: FieldError[]): DomainException {
  return new DomainException(
    'VALIDATION_FAILED',
    errors.map((error) => `${error.field} ${error.message}`).join('; '),
    errors,
  );
}
