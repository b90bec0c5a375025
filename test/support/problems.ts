import { errorCatalog, problemSlug, type ErrorCode } from '../../src/common/problem/error-codes.js';
import { type Problem } from './api-shapes.js';
import { type SocketAnswer } from './raw-socket.js';
import { type ApiResponse } from './test-service.js';

/** Every member a problem document may have (RFC 9457 plus `code` and `errors`). */
export const problemKeys = ['type', 'title', 'status', 'detail', 'instance', 'code', 'errors'];
/** The extension members of a failed verification (VC API): always all three. */
const verificationKeys = ['verified', 'checks', 'problemDetails'];

/**
 * The response is a complete problem document with this status and code: problem+json, not cached,
 * every member present, `status` equal to the HTTP status, `instance` the request path, a catalogued
 * code whose `type` URL ends in its kebab-case slug, and nothing that looks like a stack trace.
 */
export function expectProblem(
  response: ApiResponse,
  status: number,
  code: string,
  instance: string,
): Problem {
  const entry = errorCatalog[code as ErrorCode];
  expect(entry).toBeDefined();
  expect({ status: response.status, code: (response.body as Partial<Problem>).code }).toEqual({
    status,
    code,
  });
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json(;|$)/);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const problem = response.body as Problem;
  expect(problem).toEqual(
    expect.objectContaining({
      type: expect.stringMatching(
        new RegExp(`^https?://[^/]+/ctrl/problems/${problemSlug(code as ErrorCode)}$`),
      ),
      title: entry.title,
      status,
      detail: expect.any(String),
      instance,
      code,
    }),
  );
  expect(problem.detail).not.toBe('');
  if (code === 'CREDENTIAL_NOT_VERIFIED') {
    expect(Object.keys(problem)).toEqual(expect.arrayContaining(verificationKeys));
  }
  const allowed =
    code === 'CREDENTIAL_NOT_VERIFIED' ? [...problemKeys, ...verificationKeys] : problemKeys;
  expect(allowed).toEqual(expect.arrayContaining(Object.keys(problem)));
  expect(entry.status).toBe(status);
  expect(response.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|QueryFailedError/);
  return problem;
}

/** The problem names these fields among its invalid inputs. */
export function expectFieldErrors(problem: Problem, fields: string[]): void {
  const named = (problem.errors ?? []).map((error) => error.field);
  for (const field of fields) expect(named).toContain(field);
}

/** A raw socket's answer is a problem document with this status and code. */
export function expectSocketProblem(answer: SocketAnswer, status: number, code: string): Problem {
  expect({
    status: answer.status,
    type: answer.headers['content-type']?.split(';')[0],
    code: (answer.json as { code?: string } | undefined)?.code,
  }).toEqual({ status, type: 'application/problem+json', code });
  return answer.json as Problem;
}
