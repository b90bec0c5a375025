import {
  Injectable,
  Logger,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { type Response } from 'express';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { requestIdOf } from '../common/logging.js';
import { type ContextualRequest } from '../common/request-context.js';
import { idempotencyKeyOf, keyRowId, requestFingerprint } from './idempotency-key.js';
import { IdempotencyStore } from './idempotency-store.js';
import { withHeldKey, type HeldKey } from './idempotent-answer.js';

/** Set on an answer that is the replay of the first one (docs/api.md, Retrying safely). */
export const replayedHeader = 'Idempotent-Replayed';

/**
 * The `Idempotency-Key` of a create or issue (@Idempotent): the first request with a key runs and its
 * 2xx answer is kept; the same request again gets that answer, another request with the key 422, and a
 * duplicate while the first runs 409. An error answer frees the key, so the caller can fix the request.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger('Idempotency');

  constructor(private readonly store: IdempotencyStore) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<ContextualRequest>();
    const key = idempotencyKeyOf(request);
    if (key === undefined) return next.handle();
    return from(this.handle(request, http.getResponse<Response>(), key, next));
  }

  private async handle(
    request: ContextualRequest,
    response: Response,
    key: string,
    next: CallHandler,
  ): Promise<unknown> {
    const rowId = keyRowId(
      {
        // Only authenticated routes take a key; the guards set the caller before interceptors run.
        subject: request.user?.subject ?? '',
        tenantId: request.agent?.tenantId ?? '',
        operation: `${request.method} ${(request.route as { path?: string } | undefined)?.path ?? request.path}`,
      },
      key,
    );
    const reservation = await this.store.reserve(rowId, requestFingerprint(request));
    if (reservation.kind === 'replay') {
      response.status(reservation.status);
      response.setHeader(replayedHeader, 'true');
      return reservation.body;
    }
    const held: HeldKey = {
      rowId,
      owner: reservation.owner,
      // Nest sets the route's status before the interceptors run.
      status: response.statusCode,
      record: (json, manager) => this.store.record(held, json, manager),
      kept: false,
    };
    let body: unknown;
    try {
      body = await withHeldKey(held, () =>
        lastValueFrom(next.handle(), { defaultValue: undefined }),
      );
    } catch (error) {
      await this.store
        .release(held)
        .catch((releaseError: unknown) => this.warn(request, releaseError));
      throw error;
    }
    if (!held.kept) {
      // The effect is committed: a failure to keep its answer must not turn the answer into an error.
      await this.store.complete(held, body).catch((error: unknown) => this.warn(request, error));
    }
    return body;
  }

  private warn(request: ContextualRequest, error: unknown): void {
    this.logger.warn({
      msg: `Could not record an idempotency key's outcome: ${(error as Error).message}`,
      event: 'idempotency.record-failed',
      reqId: requestIdOf(request),
    });
  }
}
