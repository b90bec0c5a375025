import { Module } from '@nestjs/common';
import { DidModule } from '../did/did.module.js';
import { WebhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookRetention } from './webhook-retention.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [DidModule],
  controllers: [WebhooksController, WebhookDeliveriesController],
  providers: [
    WebhookOutbox,
    WebhookDispatcher,
    WebhooksService,
    WebhookDeliveriesService,
    WebhookRetention,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
