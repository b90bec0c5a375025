import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { type Request, type Response } from 'express';
import { from, switchMap, type Observable } from 'rxjs';
import { hasBody } from './has-body.js';
import { checkApiQuery, readJsonBody } from './http-body.js';

/**
 * Reads an API request's query and body only after the guards let its caller in, so that an
 * unauthenticated client cannot make the service hold its slow or large body.
 */
@Injectable()
export class ApiRequestInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (!request.originalUrl.startsWith('/ctrl/api/')) return next.handle();
    checkApiQuery(request);
    // Most calls carry no body: they go on at once, without waiting for a promise.
    if (!hasBody(request)) return next.handle();
    return from(readJsonBody(request, http.getResponse<Response>())).pipe(
      switchMap(() => next.handle()),
    );
  }
}
