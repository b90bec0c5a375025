import { DomainException } from '../common/problem/domain.exception.js';
import { trustAnchorLimits } from './trust-anchor-limits.js';

export function trustAnchorNotFound(id: string): DomainException {
  return new DomainException('TRUST_ANCHOR_NOT_FOUND', `The tenant has no trust anchor '${id}'.`);
}

export function trustAnchorExists(subject: string): DomainException {
  return new DomainException(
    'TRUST_ANCHOR_ALREADY_EXISTS',
    `The certificate '${subject.slice(0, 200)}' is already a trust anchor of the tenant.`,
    [{ field: 'certificate', message: 'is already a trust anchor' }],
  );
}

export function trustAnchorsFull(): DomainException {
  const most = trustAnchorLimits.entries;
  return new DomainException(
    'TRUST_ANCHORS_LIMIT_REACHED',
    `A tenant keeps at most ${most} trust anchors; delete one first.`,
    [{ field: 'certificate', message: `would be entry ${most + 1}; at most ${most}` }],
  );
}

/** Not a certificate, or one that may not be an anchor: nothing is stored. */
export function certificateRefused(message: string): DomainException {
  return new DomainException('VALIDATION_FAILED', `The certificate ${message}.`, [
    { field: 'certificate', message },
  ]);
}
