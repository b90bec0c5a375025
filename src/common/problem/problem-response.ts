import { type Request, type Response } from 'express';
import { errorCatalog, problemSlug, type ErrorCode } from './error-codes.js';
import type { DomainException } from './domain.exception.js';
import { hasBody } from '../has-body.js';
import { targetPath } from '../request-target.js';
import { problemContentType, type ProblemDetails } from './problem.js';

/** The base of every problem `type` URI; `/ctrl/problems/{slug}` also answers with the description. */
export function problemTypeUri(publicBaseUrl: string, code: ErrorCode): string {
  return `${publicBaseUrl}/ctrl/problems/${problemSlug(code)}`;
}

export function toProblem(
  exception: DomainException,
  request: Request,
  publicBaseUrl: string,
): ProblemDetails {
  const problem: ProblemDetails = {
    type: problemTypeUri(publicBaseUrl, exception.code),
    title: errorCatalog[exception.code].title,
    status: exception.status,
    detail: exception.detail,
    // originalUrl: middleware mounted under a prefix sees a shortened `path`.
    instance: targetPath(request.originalUrl),
    code: exception.code,
  };
  if (exception.errors !== undefined && exception.errors.length > 0)
    problem.errors = exception.errors;
  // Extension members follow the standard ones and never replace them.
  for (const [name, value] of Object.entries(exception.extensions)) {
    if (!(name in problem)) (problem as unknown as Record<string, unknown>)[name] = value;
  }
  return problem;
}

/** Writes the one response shape every error takes (RFC 9457). */
export function sendProblem(
  exception: DomainException,
  request: Request,
  response: Response,
  publicBaseUrl: string,
): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  for (const [name, value] of Object.entries(exception.headers)) response.setHeader(name, value);
  response.setHeader('Cache-Control', 'no-store');
  // A body still on its way (refused before it was read) must not hold the connection open.
  if (!request.complete && hasBody(request)) response.setHeader('Connection', 'close');
  response
    .status(exception.status)
    .type(problemContentType)
    .send(JSON.stringify(toProblem(exception, request, publicBaseUrl)));
}
