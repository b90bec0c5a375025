import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { hasBody } from './has-body.js';
import { checkApiQuery, readJsonBody } from './http-body.js';

/**
 * The last global guard: reads an API request's query and body only after the other guards let its
 * caller in, so that an unauthenticated client cannot make the service hold its slow or large body. A
 * guard, not an interceptor: with no global interceptor (tracing adds one), Nest runs a handler
 * without RxJS around it (docs/performance.md).
 */
@Injectable()
export class ApiRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (!request.originalUrl.startsWith('/ctrl/api/')) return true;
    checkApiQuery(request);
    // Most calls carry no body: they go on at once, without waiting for a promise.
    if (!hasBody(request)) return true;
    return readJsonBody(request, http.getResponse<Response>()).then(() => true);
  }
}
