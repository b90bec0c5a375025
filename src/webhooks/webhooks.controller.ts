import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../common/openapi.js';
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

/** The tenant's webhook subscriptions (docs/webhooks.md). */
@ApiTags('Webhooks')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post('create')
  @TenantScoped()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createWebhook',
    summary: "Subscribe a URL to the tenant's events",
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
  @ApiProblems('/ctrl/api/v1.0/webhooks/create', ...bodyProblems, ...tenantScopedProblems)
  async create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateWebhookDto,
  ): Promise<CreatedWebhookDto> {
    return this.webhooks.create(tenantId, body);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listWebhooks',
    summary: "The tenant's subscriptions, newest first",
  })
  @ApiOkResponse({
    type: WebhookPageDto,
    description: 'A page of subscriptions (never their secrets).',
    example: { content: [webhookExample], number: 0, size: 20, totalElements: 1, totalPages: 1 },
  })
  @ApiProblems('/ctrl/api/v1.0/webhooks', 'VALIDATION_FAILED', ...tenantScopedProblems)
  async list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListWebhooksQuery,
  ): Promise<WebhookPageDto> {
    await this.webhooks.requireTenant(tenantId);
    return this.webhooks.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({ operationId: 'getWebhook', summary: 'One subscription of the tenant' })
  @ApiParam(idParameter)
  @ApiOkResponse({ type: WebhookDto, description: 'The subscription.', example: webhookExample })
  @ApiProblems(
    `/ctrl/api/v1.0/webhooks/${webhookExample.id}`,
    'WEBHOOK_NOT_FOUND',
    ...tenantScopedProblems,
  )
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<WebhookDto> {
    return this.webhooks.get(tenantId, id);
  }

  @Post(':id/update')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'updateWebhook',
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
    `/ctrl/api/v1.0/webhooks/${webhookExample.id}/update`,
    'WEBHOOK_NOT_FOUND',
    'NOTHING_TO_UPDATE',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  update(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @Body() body: UpdateWebhookDto,
  ): Promise<WebhookDto> {
    return this.webhooks.update(tenantId, id, body);
  }

  @Post(':id/rotate-secret')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
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
    `/ctrl/api/v1.0/webhooks/${webhookExample.id}/rotate-secret`,
    'WEBHOOK_NOT_FOUND',
    ...tenantScopedProblems,
  )
  rotateSecret(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
  ): Promise<RotatedSecretDto> {
    return this.webhooks.rotateSecret(tenantId, id);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a subscription',
    description: 'Its pending deliveries and their log go with it.',
  })
  @ApiParam(idParameter)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(
    `/ctrl/api/v1.0/webhooks/${webhookExample.id}/delete`,
    'WEBHOOK_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<void> {
    await this.webhooks.delete(tenantId, id);
  }
}
