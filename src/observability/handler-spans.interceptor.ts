import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { Observable } from 'rxjs';

const tracer = trace.getTracer('agent-service/nest');

/**
 * A span per Nest handler, `Controller.handler`, under the request's Express span: OpenTelemetry's
 * NestJS instrumentation does not support Nest 12. Installed only while tracing is on.
 */
@Injectable()
export class HandlerSpansInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const controller = context.getClass().name;
    const handler = context.getHandler().name;
    return new Observable((subscriber) => {
      tracer.startActiveSpan(
        `${controller}.${handler}`,
        {
          attributes: {
            'nestjs.type': 'handler',
            'nestjs.controller': controller,
            'nestjs.callback': handler,
          },
        },
        (span: Span) => {
          next.handle().subscribe({
            next: (value) => subscriber.next(value),
            error: (error: unknown) => {
              span.setStatus({ code: SpanStatusCode.ERROR });
              span.end();
              subscriber.error(error);
            },
            complete: () => {
              span.end();
              subscriber.complete();
            },
          });
        },
      );
    });
  }
}
