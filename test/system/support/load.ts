/** One request of a load run: what was asked, when, and what came back (or the network error). */
export interface Outcome {
  operation: string;
  path: string;
  /** 0 when no HTTP answer came (connection refused or reset, timeout). */
  status: number;
  error?: string;
  /** Date.now() when the request was handed to fetch and when its answer (or error) arrived. */
  startedAt: number;
  endedAt: number;
  body?: unknown;
  headers?: Headers;
  /** The query parameters the request was sent with. */
  requestQuery?: Record<string, string>;
}

export interface Attempt {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  timeoutMs?: number;
}

/** One request that never throws: network errors and timeouts become status 0 with the error. */
export async function attempt(
  operation: string,
  baseUrl: string,
  path: string,
  request: Attempt = {},
): Promise<Outcome> {
  const url = new URL(path, baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {}))
    url.searchParams.append(name, value);
  const startedAt = Date.now();
  try {
    const response = await fetch(url, {
      method: request.method ?? 'GET',
      headers: request.headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(request.timeoutMs ?? 20_000),
    });
    const text = await response.text();
    let body: unknown = text;
    if (/json/.test(response.headers.get('content-type') ?? '') && text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // Keep the text.
      }
    }
    return {
      operation,
      path,
      status: response.status,
      startedAt,
      endedAt: Date.now(),
      body,
      headers: response.headers,
      requestQuery: request.query,
    };
  } catch (error) {
    const cause =
      error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return {
      operation,
      path,
      status: 0,
      error: `${error instanceof Error ? error.message : String(error)}${cause}`,
      startedAt,
      endedAt: Date.now(),
      requestQuery: request.query,
    };
  }
}

/**
 * `loops` concurrent loops, each calling `step` again and again until `durationMs` have passed since the
 * start (a step that has begun always finishes).
 */
export async function runLoops(
  loops: number,
  durationMs: number,
  step: (loop: number, iteration: number) => Promise<void>,
): Promise<void> {
  const end = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: loops }, async (_unused, loop) => {
      for (let iteration = 0; Date.now() < end; iteration++) await step(loop, iteration);
    }),
  );
}

/** A compact description of outcomes for failure messages. */
export function describeOutcomes(outcomes: Outcome[], since?: number): string {
  return outcomes
    .map(
      (outcome) =>
        `${since === undefined ? '' : `[${outcome.startedAt - since}..${outcome.endedAt - since} ms] `}` +
        `${outcome.operation} ${outcome.path}${
          outcome.requestQuery === undefined
            ? ''
            : `?${new URLSearchParams(outcome.requestQuery).toString()}`
        } -> ${outcome.status}${outcome.error === undefined ? '' : ` (${outcome.error})`}${
          outcome.status >= 400 && typeof outcome.body === 'object'
            ? ` ${JSON.stringify(outcome.body)}`
            : ''
        }`,
    )
    .join('\n');
}
