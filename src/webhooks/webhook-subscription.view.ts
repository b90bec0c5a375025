import { DomainException } from '../common/problem/domain.exception.js';
import { type SubscriptionRow } from './webhook-subscription.repository.js';

export interface NewSubscription {
  url: string;
  events?: string[];
  description?: string;
}

export type SubscriptionChanges = Partial<NewSubscription & { enabled: boolean }>;

/** A subscription as callers see it: never its secret, except once, when it is made. */
export interface SubscriptionView {
  id: string;
  tenantId: string | null;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export function viewOf(entity: SubscriptionRow): SubscriptionView {
  return {
    id: entity.id,
    tenantId: entity.tenantId,
    url: entity.url,
    events: entity.events,
    description: entity.description,
    enabled: entity.enabled,
    disabledReason: entity.disabledReason,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

export function webhookNotFound(owner: string | null, id: string): DomainException {
  const whose = owner === null ? 'There is no all-tenant' : 'The tenant has no';
  return new DomainException('WEBHOOK_NOT_FOUND', `${whose} webhook subscription '${id}'.`);
}
