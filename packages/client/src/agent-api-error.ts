import { type ErrorCode, type Problem } from './types.js';

/** An error answer of the agent service, with its problem details (RFC 9457) when it sent them. */
export class AgentApiError extends Error {
  override readonly name = 'AgentApiError';

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The problem details; undefined when the answer was not a problem (a proxy's error page, say). */
    readonly problem: Problem | undefined,
    /** The method and URL of the request that failed. */
    readonly request: string,
  ) {
    super(
      problem === undefined
        ? `${request} answered ${status}`
        : `${request} answered ${status} ${problem.code}: ${problem.detail}`,
    );
  }

  /** The problem's stable `code`, for example `TENANT_NOT_FOUND`. */
  get code(): ErrorCode | undefined {
    return this.problem?.code;
  }

  /** The error of a response that is not a success, from its already parsed body. */
  static from(response: Response, body: unknown, request: string): AgentApiError {
    return new AgentApiError(response.status, isProblem(body) ? body : undefined, request);
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const candidate = body as Record<string, unknown>;
  return (
    typeof candidate.status === 'number' &&
    typeof candidate.title === 'string' &&
    typeof candidate.code === 'string' &&
    typeof candidate.detail === 'string'
  );
}
