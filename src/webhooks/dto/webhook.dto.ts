import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { CursorPageQuery } from '../../common/cursor-page.js';
import { eventTypes as webhookEventTypes } from '../../events/event-outbox.js';
import { CursorPageDto } from '../../common/page-dto.js';

export const webhookExample = {
  id: '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f',
  tenantId: 'acme',
  // A receiver on this machine: local mode sends to loopback only (docs/webhooks.md), and the service
  // resolves a URL's host when it is given, so an invented domain could not work as an example.
  url: 'http://localhost:9000/agent-events',
  events: ['credential.issued', 'credential.status.changed'],
  description: 'Our CRM',
  enabled: true,
  disabledReason: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

export class CreateWebhookDto {
  @ApiProperty({
    description:
      'Where events are POSTed: https, to a public address (checked now and at every delivery). In local mode: a receiver on this machine (loopback, http allowed), as in the example.',
    example: webhookExample.url,
    maxLength: 2048,
  })
  @IsString()
  @MinLength(1)
  @MaxLength(2048)
  url!: string;

  @ApiPropertyOptional({
    description: 'The event types to receive; absent or empty: all.',
    enum: webhookEventTypes,
    isArray: true,
    example: webhookExample.events,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(webhookEventTypes.length)
  @IsIn(webhookEventTypes, {
    each: true,
    message: `each value in events must be one of ${webhookEventTypes.join(', ')}`,
  })
  events?: string[];

  @ApiPropertyOptional({ description: 'A note for people.', example: 'Our CRM', maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

/** What `update` may change: any field of a new subscription, and whether it is enabled. */
export class UpdateWebhookDto extends PartialType(CreateWebhookDto) {
  @ApiPropertyOptional({
    description: 'false pauses deliveries; true resumes them and clears the failure count.',
    example: true,
  })
  // Absent leaves it as it is; null is no boolean (IsOptional would let it through).
  @ValidateIf((_object, value) => value !== undefined)
  @IsBoolean()
  enabled?: boolean;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid', example: webhookExample.id })
  id!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The tenant whose events it receives; null: every tenant (administrators).',
    example: 'acme',
  })
  tenantId!: string | null;

  @ApiProperty({ example: webhookExample.url })
  url!: string;

  @ApiProperty({
    enum: webhookEventTypes,
    isArray: true,
    description: 'Empty: all.',
    example: webhookExample.events,
  })
  events!: string[];

  @ApiProperty({ type: 'string', nullable: true, example: 'Our CRM' })
  description!: string | null;

  @ApiProperty({ description: 'Disabled subscriptions receive nothing.', example: true })
  enabled!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why the service disabled it (410 Gone, or failures in a row).',
    example: null,
  })
  disabledReason!: string | null;

  @ApiProperty({ example: webhookExample.createdAt })
  createdAt!: string;

  @ApiProperty({ example: webhookExample.updatedAt })
  updatedAt!: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({
    description:
      'The signing secret (Standard Webhooks `whsec_...`). Shown only in this answer: keep it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  })
  secret!: string;
}

export class WebhookPageDto extends CursorPageDto(WebhookDto) {}

export class ListWebhooksQuery extends CursorPageQuery {}
