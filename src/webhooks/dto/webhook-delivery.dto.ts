import { ApiProperty } from '@nestjs/swagger';
import { CursorPageDto } from '../../common/page-dto.js';

export const deliveryExample = {
  id: 'a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e',
  eventType: 'credential.issued',
  state: 'delivered',
  attempts: 2,
  createdAt: '2026-11-25T10:00:00.000Z',
  nextAttemptAt: null,
  finishedAt: '2026-11-25T10:00:05.412Z',
  log: [
    {
      attempt: 1,
      startedAt: '2026-11-25T10:00:00.105Z',
      statusCode: 503,
      durationMs: 41,
      error: null,
      responseExcerpt: 'Service Unavailable',
      responseContentType: 'text/plain',
    },
    {
      attempt: 2,
      startedAt: '2026-11-25T10:00:05.380Z',
      statusCode: 204,
      durationMs: 32,
      error: null,
      responseExcerpt: null,
      responseContentType: null,
    },
  ],
};

export class WebhookAttemptDto {
  @ApiProperty({ example: 1 })
  attempt!: number;

  @ApiProperty({ example: '2026-11-25T10:00:00.105Z' })
  startedAt!: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The receiver’s status; null when no answer came.',
    example: 503,
  })
  statusCode!: number | null;

  @ApiProperty({ example: 41 })
  durationMs!: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Why no answer came: the refused target and why, `timed out` (connecting within 3 s, answering within 10 s) or `connection failed`.',
    example: null,
  })
  error!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The first 256 bytes of a plain text or JSON answer; null for any other answer, or none.',
    example: 'Service Unavailable',
  })
  responseExcerpt!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The media type of the answer whose excerpt is kept; null when none is.',
    example: 'text/plain',
  })
  responseContentType!: string | null;
}

export class WebhookDeliveryDto {
  @ApiProperty({
    description: 'The `webhook-id` header, the same on every attempt.',
    example: deliveryExample.id,
  })
  id!: string;

  @ApiProperty({ example: 'credential.issued' })
  eventType!: string;

  @ApiProperty({ enum: ['pending', 'delivered', 'failed'], example: 'delivered' })
  state!: string;

  @ApiProperty({ example: 2 })
  attempts!: number;

  @ApiProperty({ example: deliveryExample.createdAt })
  createdAt!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'When pending: the next try.',
    example: null,
  })
  nextAttemptAt!: string | null;

  @ApiProperty({ type: 'string', nullable: true, example: deliveryExample.finishedAt })
  finishedAt!: string | null;

  @ApiProperty({ type: [WebhookAttemptDto] })
  log!: WebhookAttemptDto[];
}

export class WebhookDeliveryPageDto extends CursorPageDto(WebhookDeliveryDto) {}

export class TestDeliveryDto {
  @ApiProperty({
    description: 'The queued delivery (its `webhook-id`).',
    example: deliveryExample.id,
  })
  deliveryId!: string;
}

export class RotatedSecretDto {
  @ApiProperty({
    description: 'The new secret; shown only here.',
    example: 'whsec_Qm9yZWQgd2l0aCBzZWNyZXRzPyBLZWVwIHRoaXMgb25lLg==',
  })
  secret!: string;

  @ApiProperty({
    description: 'Until then the old secret signs too (a second signature).',
    example: '2026-11-26T10:00:00.000Z',
  })
  previousSecretExpiresAt!: string;
}
