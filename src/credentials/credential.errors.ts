import { DomainException } from '../common/problem/domain.exception.js';
import { type ErrorCode } from '../common/problem/error-codes.js';
import { type FieldError } from '../common/problem/problem.js';
import { ContextNotAllowedError } from './document-loader.js';

/** What a route taking a credential or presentation in its JSON body may answer about that body. */
export const credentialBodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'CREDENTIAL_INVALID',
  'JSONLD_CONTEXT_UNKNOWN',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const satisfies readonly ErrorCode[];

export function credentialInvalid(errors: FieldError[]): DomainException {
  return new DomainException(
    'CREDENTIAL_INVALID',
    errors.map((error) => `${error.field} ${error.message}`).join('; '),
    errors,
  );
}

export function contextUnknown(url: string): DomainException {
  return new DomainException(
    'JSONLD_CONTEXT_UNKNOWN',
    `The JSON-LD context '${url}' is not one this service knows; it is never fetched (an operator can add it: docs/credentials.md).`,
    [{ field: '@context', message: `'${url}' is not a known context` }],
  );
}

/** One failed check of a verification, in the shape VC Data Model 2.0 §7.1 gives `problemDetails`. */
export interface CheckProblem {
  type: string;
  check:
    'proof' | 'issuer' | 'validity' | 'status' | 'holder' | 'challenge' | 'domain' | 'credential';
  title: string;
  detail: string;
}

/** The problem types the VC Data Model and Data Integrity specifications define. */
export const checkProblemTypes = {
  proof: 'https://w3id.org/security#PROOF_VERIFICATION_ERROR',
  issuer: 'https://www.w3.org/TR/vc-data-model#CRYPTOGRAPHIC_SECURITY_ERROR',
  validity: 'https://www.w3.org/TR/vc-data-model#RANGE_ERROR',
  status: 'https://www.w3.org/ns/credentials/status-list#STATUS_VERIFICATION_ERROR',
  statusRetrieval: 'https://www.w3.org/ns/credentials/status-list#STATUS_RETRIEVAL_ERROR',
  holder: 'https://www.w3.org/TR/vc-data-model#CRYPTOGRAPHIC_SECURITY_ERROR',
  challenge: 'https://w3id.org/security#INVALID_CHALLENGE_ERROR',
  domain: 'https://w3id.org/security#INVALID_DOMAIN_ERROR',
} as const;

export function notVerified(checks: string[], problems: CheckProblem[]): DomainException {
  return new DomainException(
    'CREDENTIAL_NOT_VERIFIED',
    `Not verified: ${problems.map((problem) => `${problem.check} check: ${problem.detail}`).join('; ')}`,
    undefined,
    {},
    { verified: false, checks, problemDetails: problems },
  );
}

/**
 * What the JSON-LD libraries threw while reading a credential, as the answer it deserves: a context we
 * do not know or a term the contexts leave undefined is the caller's; anything else is ours.
 */
export function jsonLdProblem(error: unknown, field: string): DomainException | undefined {
  for (let cause: unknown = error, depth = 0; cause instanceof Error && depth < 5; depth++) {
    if (cause instanceof ContextNotAllowedError) return contextUnknown(cause.url);
    const details = (cause as { details?: { event?: { message?: string; details?: unknown } } })
      .details;
    if (cause.name === 'jsonld.ValidationError' && details?.event !== undefined) {
      const named = JSON.stringify(details.event.details ?? {});
      return credentialInvalid([
        {
          field,
          message: `is not valid JSON-LD: ${details.event.message ?? 'safe mode'} ${named}`,
        },
      ]);
    }
    if (typeof cause.name === 'string' && cause.name.startsWith('jsonld.')) {
      const inner = (cause as { details?: { cause?: unknown } }).details?.cause;
      if (inner === undefined) {
        return credentialInvalid([{ field, message: `is not valid JSON-LD: ${cause.message}` }]);
      }
      cause = inner;
      continue;
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
