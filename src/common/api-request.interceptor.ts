import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { type Request, type Response } from 'express';
import { type Observable } from 'rxjs';
import { checkApiQuery, readJsonBody } from './http-body.js';

/**
 * Reads an API request's query and body only after the guards let its caller in, so that an
 * unauthenticated client cannot make the service hold its slow or large body.
 */
@Injectable()
export class ApiRequestInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    if (request.path.startsWith('/ctrl/api/')) {
      checkApiQuery(request);
      await readJsonBody(request, http.getResponse<Response>());
    }
    return next.handle();
  }
}
