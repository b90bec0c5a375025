import { errorCatalog, type ErrorCode } from './error-codes.js';
import { type FieldError } from './problem.js';

/**
 * What services throw: a stable code, a human sentence for `detail`, and optionally the invalid fields.
 * The ProblemDetailsFilter turns it into the HTTP answer; nothing else writes error responses.
 */
export class DomainException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    /** Extra response headers, such as `Retry-After` or `Allow`. */
    readonly headers: Record<string, string> = {},
    /** RFC 9457 extension members, written beside the standard ones (which they cannot replace). */
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'DomainException';
    this.status = errorCatalog[code].status;
  }
}
