import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenantsModule } from '../tenants/tenants.module.js';
import { SecretsModule } from '../secrets/secrets.module.js';
import { webhookDeliveriesController } from './webhook-deliveries.controller.js';
import { WebhookDeliveriesService } from './webhook-deliveries.service.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookAttempts } from './webhook-attempts.js';
import { WebhookAttemptEntity } from './webhook-attempt.entity.js';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';
import { WebhookEventEntity } from './webhook-event.entity.js';
import { WebhookMetrics } from './webhook-metrics.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhookQueueStatistics } from './webhook-queue-statistics.js';
import { WebhookRetention } from './webhook-retention.js';
import { allTenantWebhooks, tenantWebhooks } from './webhook-scope.js';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity.js';
import { webhookSealedColumns } from './webhook-subscription.sealed-columns.js';
import { webhooksController } from './webhooks.controller.js';
import { WebhookChangesService } from './webhook-changes.service.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookEventRepository } from './webhook-event.repository.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** The tables this feature owns (src/entities.ts gathers every feature's list). */
export const webhookEntities = [
  WebhookSubscriptionEntity,
  WebhookEventEntity,
  WebhookDeliveryEntity,
  WebhookAttemptEntity,
];

@Module({
  imports: [
    TypeOrmModule.forFeature(webhookEntities),
    SecretsModule.forFeature(webhookSealedColumns),
    TenantsModule,
  ],
  controllers: [tenantWebhooks, allTenantWebhooks].flatMap((scope) => [
    webhooksController(scope),
    webhookDeliveriesController(scope),
  ]),
  providers: [
    WebhookOutbox,
    WebhookDispatcher,
    WebhookAttempts,
    WebhooksService,
    WebhookChangesService,
    WebhookSecretsService,
    WebhookDeliveriesService,
    WebhookRetention,
    WebhookQueueStatistics,
    WebhookMetrics,
    WebhookSubscriptionRepository,
    WebhookEventRepository,
    WebhookDeliveryRepository,
  ],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
