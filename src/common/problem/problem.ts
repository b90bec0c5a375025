import { type ErrorCode } from './error-codes.js';

/** One invalid input, named by the field (or query parameter, or header) it came from. */
export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details, with our stable `code` and optional field errors. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  errors?: FieldError[];
}

export const problemContentType = 'application/problem+json';
