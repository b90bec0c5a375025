import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { CurrentActor } from '../auth/access.decorators.js';
import { type Actor } from '../auth/caller.js';
import { ApiProblems } from '../common/openapi.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  ListWebhooksQuery,
  UpdateWebhookDto,
  webhookExample,
  WebhookDto,
  WebhookPageDto,
} from './dto/webhook.dto.js';
import { RotatedSecretDto } from './dto/webhook-delivery.dto.js';
import { type WebhookScope } from './webhook-scope.js';
import { WebhookChangesService } from './webhook-changes.service.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';
import { WebhooksService } from './webhooks.service.js';

export const idParameter = {
  name: 'id',
  description: 'The subscription id.',
  schema: { type: 'string' as const, format: 'uuid', example: webhookExample.id },
};
export const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** The webhook subscriptions of a scope (docs/webhooks.md). */
export function webhooksController(scope: WebhookScope) {
  const base = `/${scope.path}`;

  @scope.controller()
  @Controller(scope.path)
  class WebhooksController {
    constructor(
      private readonly webhooks: WebhooksService,
      private readonly changes: WebhookChangesService,
      private readonly secrets: WebhookSecretsService,
    ) {}

    @Post('create')
    @scope.access()
    @HttpCode(201)
    @Idempotent()
    @ApiOperation({
      operationId: scope.operationId('createWebhook'),
      summary: `Subscribe a URL to ${scope.whose} events`,
      description:
        'Events are POSTed as Standard Webhooks, signed with the secret this answer shows once. The URL must be https on a public address.',
    })
    @ApiBody({
      type: CreateWebhookDto,
      examples: {
        credentials: {
          summary: 'Credential events to a receiver',
          value: {
            url: webhookExample.url,
            events: webhookExample.events,
            description: webhookExample.description,
          },
        },
        all: { summary: 'Every event', value: { url: webhookExample.url } },
      },
    })
    @ApiCreatedResponse({
      type: CreatedWebhookDto,
      description: 'The subscription, with its secret (only here).',
      example: { ...webhookExample, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    })
    @ApiProblems(`${base}/create`, ...bodyProblems, ...scope.problems)
    async create(
      @scope.owner() owner: string | null,
      @Body() body: CreateWebhookDto,
      @CurrentActor() actor: Actor,
    ): Promise<CreatedWebhookDto> {
      return this.changes.create(owner, body, actor);
    }

    @Get()
    @scope.access()
    @ApiOperation({
      operationId: scope.operationId('listWebhooks'),
      summary: `The subscriptions to ${scope.whose} events, newest first`,
    })
    @ApiOkResponse({
      type: WebhookPageDto,
      description: 'A page of subscriptions (never their secrets).',
      example: {
        content: [webhookExample],
        number: 0,
        size: 20,
        totalElements: 1,
        totalPages: 1,
        after: null,
      },
    })
    @ApiProblems(base, 'VALIDATION_FAILED', ...scope.problems)
    list(
      @scope.owner() owner: string | null,
      @Query() query: ListWebhooksQuery,
    ): Promise<WebhookPageDto> {
      return this.webhooks.list(owner, query);
    }

    @Get(':id')
    @scope.access()
    @ApiOperation({
      operationId: scope.operationId('getWebhook'),
      summary: `One subscription to ${scope.whose} events`,
    })
    @ApiParam(idParameter)
    @ApiOkResponse({ type: WebhookDto, description: 'The subscription.', example: webhookExample })
    @ApiProblems(`${base}/${webhookExample.id}`, 'WEBHOOK_NOT_FOUND', ...scope.problems)
    get(@scope.owner() owner: string | null, @Param('id') id: string): Promise<WebhookDto> {
      return this.webhooks.get(owner, id);
    }

    @Post(':id/update')
    @scope.access()
    @HttpCode(200)
    @ApiOperation({
      operationId: scope.operationId('updateWebhook'),
      summary: 'Change a subscription',
      description:
        'Only what is given changes. A new URL is checked like a new subscription; `enabled: true` resumes a disabled one and clears its failure count.',
    })
    @ApiParam(idParameter)
    @ApiBody({
      type: UpdateWebhookDto,
      examples: {
        resume: { summary: 'Resume after it was disabled', value: { enabled: true } },
        events: {
          summary: 'Only credential events',
          value: { events: ['credential.issued', 'credential.status.changed'] },
        },
      },
    })
    @ApiOkResponse({
      type: WebhookDto,
      description: 'The subscription as changed.',
      example: webhookExample,
    })
    @ApiProblems(
      `${base}/${webhookExample.id}/update`,
      'WEBHOOK_NOT_FOUND',
      'NOTHING_TO_UPDATE',
      ...bodyProblems,
      ...scope.problems,
    )
    update(
      @scope.owner() owner: string | null,
      @Param('id') id: string,
      @Body() body: UpdateWebhookDto,
      @CurrentActor() actor: Actor,
    ): Promise<WebhookDto> {
      return this.changes.update(owner, id, body, actor);
    }

    @Post(':id/rotate-secret')
    @scope.access()
    @HttpCode(200)
    @Idempotent()
    @ApiOperation({
      operationId: scope.operationId('rotateWebhookSecret'),
      summary: 'Give a subscription a new secret',
      description:
        'Deliveries are signed with the new secret, and for 24 hours with the old one too (two signatures in `webhook-signature`), so a receiver can switch without losing one.',
    })
    @ApiParam(idParameter)
    @ApiOkResponse({
      type: RotatedSecretDto,
      description: 'The new secret (only here) and when the old one stops signing.',
      example: {
        secret: 'whsec_Qm9yZWQgd2l0aCBzZWNyZXRzPyBLZWVwIHRoaXMgb25lLg==',
        previousSecretExpiresAt: '2026-11-26T10:00:00.000Z',
      },
    })
    @ApiProblems(
      `${base}/${webhookExample.id}/rotate-secret`,
      'WEBHOOK_NOT_FOUND',
      ...scope.problems,
    )
    rotateSecret(
      @scope.owner() owner: string | null,
      @Param('id') id: string,
      @CurrentActor() actor: Actor,
    ): Promise<RotatedSecretDto> {
      return this.secrets.rotateSecret(owner, id, actor);
    }

    @Post(':id/delete')
    @scope.access()
    @HttpCode(204)
    @ApiOperation({
      operationId: scope.operationId('deleteWebhook'),
      summary: 'Delete a subscription',
      description: 'Its pending deliveries and their log go with it.',
    })
    @ApiParam(idParameter)
    @ApiNoContentResponse({ description: 'Deleted.' })
    @ApiProblems(`${base}/${webhookExample.id}/delete`, 'WEBHOOK_NOT_FOUND', ...scope.problems)
    async delete(
      @scope.owner() owner: string | null,
      @Param('id') id: string,
      @CurrentActor() actor: Actor,
    ): Promise<void> {
      await this.changes.delete(owner, id, actor);
    }
  }
  return WebhooksController;
}
