import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { ApiProblems } from '../common/openapi.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import {
  deliveryExample,
  TestDeliveryDto,
  WebhookDeliveryPageDto,
} from './dto/webhook-delivery.dto.js';
import { ListWebhooksQuery, webhookExample } from './dto/webhook.dto.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { type WebhookScope } from './webhook-scope.js';
import { idParameter } from './webhooks.controller.js';

/** What was sent to a subscription of a scope and answered; a test event; sending one again. */
export function webhookDeliveriesController(scope: WebhookScope) {
  const base = `/${scope.path}/${webhookExample.id}`;

  @scope.controller()
  @Controller(scope.path)
  class WebhookDeliveriesController {
    constructor(private readonly deliveries: WebhookDeliveriesService) {}

    @Post(':id/test')
    @scope.access()
    @HttpCode(202)
    @Idempotent()
    @ApiOperation({
      operationId: scope.operationId('testWebhook'),
      summary: 'Send a webhook.test event to a subscription',
      description: 'Delivered like any event; follow it in the delivery log.',
    })
    @ApiParam(idParameter)
    @ApiAcceptedResponse({
      type: TestDeliveryDto,
      description: 'The event is queued.',
      example: { deliveryId: deliveryExample.id },
    })
    @ApiProblems(`${base}/test`, 'WEBHOOK_NOT_FOUND', ...scope.problems)
    test(@scope.owner() owner: string | null, @Param('id') id: string): Promise<TestDeliveryDto> {
      return this.deliveries.test(owner, id);
    }

    @Get(':id/deliveries')
    @scope.access()
    @ApiOperation({
      operationId: scope.operationId('listWebhookDeliveries'),
      summary: "A subscription's deliveries, newest first",
      description:
        'Each with its state and every attempt: when, the status code, how long, the error, the first 256 bytes of a text or JSON answer. Delivered and failed ones are pruned after the retention period.',
    })
    @ApiParam(idParameter)
    @ApiOkResponse({
      type: WebhookDeliveryPageDto,
      description: 'A page of deliveries.',
      example: {
        content: [deliveryExample],
        number: 0,
        size: 20,
        totalElements: 1,
        totalPages: 1,
        after: null,
      },
    })
    @ApiProblems(`${base}/deliveries`, 'WEBHOOK_NOT_FOUND', 'VALIDATION_FAILED', ...scope.problems)
    list(
      @scope.owner() owner: string | null,
      @Param('id') id: string,
      @Query() query: ListWebhooksQuery,
    ): Promise<WebhookDeliveryPageDto> {
      return this.deliveries.list(owner, id, query);
    }

    @Post(':id/deliveries/:deliveryId/redeliver')
    @scope.access()
    @HttpCode(202)
    @ApiOperation({
      operationId: scope.operationId('redeliverWebhook'),
      summary: 'Send a delivery again',
      description:
        'Now, with a fresh retry schedule and the same `webhook-id`, so a receiver that already has it can tell.',
    })
    @ApiParam(idParameter)
    @ApiParam({
      name: 'deliveryId',
      description: 'The delivery (its `webhook-id`).',
      schema: { type: 'string', format: 'uuid', example: deliveryExample.id },
    })
    @ApiAcceptedResponse({
      type: TestDeliveryDto,
      description: 'It is queued.',
      example: { deliveryId: deliveryExample.id },
    })
    @ApiProblems(
      `${base}/deliveries/${deliveryExample.id}/redeliver`,
      'WEBHOOK_NOT_FOUND',
      'WEBHOOK_DELIVERY_NOT_FOUND',
      ...scope.problems,
    )
    async redeliver(
      @scope.owner() owner: string | null,
      @Param('id') id: string,
      @Param('deliveryId') deliveryId: string,
    ): Promise<TestDeliveryDto> {
      await this.deliveries.redeliver(owner, id, deliveryId);
      return { deliveryId: deliveryId.toLowerCase() };
    }
  }
  return WebhookDeliveriesController;
}
