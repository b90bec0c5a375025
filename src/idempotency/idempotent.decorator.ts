import { applyDecorators, UseInterceptors } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiMoreProblems } from '../common/openapi.js';
import { idempotencyKeyHeader } from './idempotency-key.js';
import { IdempotencyInterceptor, replayedHeader } from './idempotency.interceptor.js';

/**
 * A create or issue that takes an `Idempotency-Key` (docs/api.md, Retrying safely): the one decorator a
 * route needs. A handler that writes its effect in one transaction also calls keepIdempotentAnswer in
 * it, so that effect and answer commit together.
 */
export const Idempotent = () =>
  applyDecorators(
    UseInterceptors(IdempotencyInterceptor),
    ApiHeader({
      name: idempotencyKeyHeader,
      required: false,
      description: [
        'Makes a retry safe: 1-255 printable ASCII characters (a UUID is a good key), bare or quoted as the IETF draft writes it.',
        `The same key with the same request within 24 hours answers the first 2xx answer again (with \`${replayedHeader}: true\`) and does nothing more;`,
        'with another request it is a 422, while the first request runs a 409. An error answer keeps nothing: fix the request and send it with the same key.',
        "Keys count per caller (the token's subject), tenant and operation.",
      ].join(' '),
      schema: {
        type: 'string',
        minLength: 1,
        maxLength: 257,
        example: '8e03978e-40d5-43e8-bc93-6894a57f9324',
      },
    }),
    ApiMoreProblems(
      '/ctrl/api/v1.0/tenants/create',
      'IDEMPOTENCY_KEY_INVALID',
      'IDEMPOTENCY_KEY_IN_USE',
      'IDEMPOTENCY_KEY_REUSED',
    ),
  );
