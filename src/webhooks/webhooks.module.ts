import { Module } from '@nestjs/common';
import { DidModule } from '../did/did.module.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [DidModule],
  controllers: [WebhooksController],
  providers: [WebhookOutbox, WebhookDispatcher, WebhooksService],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
