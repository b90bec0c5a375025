import { Module } from '@nestjs/common';
import { TenantsModule } from '../tenants/tenants.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { webhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookAttempts } from './webhook-attempts.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookRetention } from './webhook-retention.js';
import { allTenantWebhooks, tenantWebhooks } from './webhook-scope.js';
import { webhookSealedColumns } from './webhook-subscription.sealed-columns.js';
import { webhooksController } from './webhooks.controller.js';
import { WebhooksService } from './webhooks.service.js';

@Module({
  imports: [SecretsModule.forFeature(webhookSealedColumns), TenantsModule],
  controllers: [tenantWebhooks, allTenantWebhooks].flatMap((scope) => [
    webhooksController(scope),
    webhookDeliveriesController(scope),
  ]),
  providers: [
    WebhookOutbox,
    WebhookDispatcher,
    WebhookAttempts,
    WebhooksService,
    WebhookDeliveriesService,
    WebhookRetention,
    WebhookMetrics,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
