import { DomainException } from '../common/problem/domain.exception.js';
import { type ErrorCode } from '../common/problem/error-codes.js';
import { type ChainRefusal, type ChainRefusalReason } from '../x509/certificate.js';

/** Each reason the x509 leaf refuses a chain for, as its problem. */
const codes: Record<ChainRefusalReason, ErrorCode> = {
  malformed: 'CERTIFICATE_CHAIN_MALFORMED',
  'self-signed-leaf': 'CERTIFICATE_SELF_SIGNED',
  'not-valid-now': 'CERTIFICATE_NOT_VALID_NOW',
  'chain-broken': 'CERTIFICATE_CHAIN_BROKEN',
  'key-mismatch': 'CERTIFICATE_KEY_MISMATCH',
  'no-digital-signature': 'CERTIFICATE_PROFILE_UNSUITABLE',
  'names-mismatch': 'CERTIFICATE_PROFILE_UNSUITABLE',
  'profile-unsuitable': 'CERTIFICATE_PROFILE_UNSUITABLE',
};

export function chainRefused(refusal: ChainRefusal): DomainException {
  return new DomainException(codes[refusal.reason], refusal.message, [
    { field: 'chain', message: refusal.message },
  ]);
}

export function authorityNotConfigured(): DomainException {
  return new DomainException(
    'CERTIFICATE_AUTHORITY_NOT_CONFIGURED',
    'The service has no certificate authority: the operator sets CERTIFICATE_AUTHORITY_CERT_FILE and CERTIFICATE_AUTHORITY_KEY_FILE (docs/certificates.md); meanwhile import a chain from your own CA (POST /ctrl/api/v1.0/certificates/csr, then /import).',
  );
}

export function authorityNotFound(): DomainException {
  return new DomainException(
    'CERTIFICATE_AUTHORITY_NOT_FOUND',
    'The service has no certificate authority with this id.',
  );
}
