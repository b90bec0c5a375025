import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** Both scopes of the webhook routes: the tenant's first, then the administrator's. */
export function webhookCases(context: ContractContext): Case[] {
  return [...scopedWebhookCases(context, 'tenant'), ...scopedWebhookCases(context, 'admin')];
}

/** The tenant's webhook routes, or (`admin`) the same operations on all-tenant subscriptions. */
function scopedWebhookCases(context: ContractContext, scope: 'tenant' | 'admin'): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const admin = scope === 'admin';
  const webhooks = admin ? '/ctrl/api/v1.0/admin/webhooks' : '/ctrl/api/v1.0/webhooks';
  const operation = (name: string) => (admin ? name.replace('Webhook', 'AdminWebhook') : name);
  const owner: { headers?: Record<string, string> } = admin ? {} : tenantHeader('acme');
  // A public address literal: no DNS here, and the policy outside local mode wants https to one.
  const subscription = { url: 'https://93.184.215.14/agent-events', events: ['tenant.updated'] };
  const create = (request: ApiRequest = {}) =>
    post(`${webhooks}/create`, { ...owner, body: subscription, ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  const unknownId = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
  const redeliverPath = async (id: string) => {
    const queued = await post(`${webhooks}/${id}/test`, owner);
    return `${webhooks}/${id}/deliveries/${(queued.body as { deliveryId: string }).deliveryId}/redeliver`;
  };
  /** An agent-user may not act: for another tenant, or at all on the admin path. */
  const forbidden = admin
    ? { ...asDemo, why: 'an agent-user calls it' }
    : { ...asDemo, ...tenantHeader('other'), why: 'an agent-user names another tenant' };
  const { why: forbiddenWhy, ...forbiddenRequest } = forbidden;
  const byId: [
    string,
    (id: string) => string | Promise<string>,
    'GET' | 'POST',
    number,
    unknown?,
  ][] = [
    ['getWebhook', (id) => `${webhooks}/${id}`, 'GET', 200],
    ['deleteWebhook', (id) => `${webhooks}/${id}/delete`, 'POST', 204],
    ['updateWebhook', (id) => `${webhooks}/${id}/update`, 'POST', 200, { enabled: false }],
    ['rotateWebhookSecret', (id) => `${webhooks}/${id}/rotate-secret`, 'POST', 200],
    ['testWebhook', (id) => `${webhooks}/${id}/test`, 'POST', 202],
    ['listWebhookDeliveries', (id) => `${webhooks}/${id}/deliveries`, 'GET', 200],
    ['redeliverWebhook', redeliverPath, 'POST', 202],
  ];
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createWebhook', 201, 'a subscription to an https URL is made', () => create()],
    [
      'createWebhook',
      400,
      'the URL is plain http',
      () => create({ body: { url: 'http://93.184.215.14/agent-events' } }),
    ],
    ['createWebhook', 401, 'no token is sent', () => create(anonymous)],
    ['createWebhook', 403, forbiddenWhy, () => create(forbiddenRequest)],
    [
      'createWebhook',
      413,
      'the body is too large',
      () => create({ body: { ...subscription, description: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'createWebhook',
      415,
      'the body is not JSON',
      () =>
        post(`${webhooks}/create`, {
          body: 'x',
          headers: { 'content-type': 'text/plain', ...owner.headers },
        }),
    ],
    ['listWebhooks', 200, 'the subscriptions are listed', () => send(webhooks, owner)],
    [
      'listWebhooks',
      401,
      'the token is not valid',
      () => send(webhooks, { ...badToken, ...owner }),
    ],
    [
      'listWebhooks',
      403,
      'the token carries neither role',
      () => send(webhooks, { ...withoutRole(), ...owner }),
    ],
  ];
  if (admin) {
    const tooLarge = { query: { size: '100000' } };
    table.push(
      ['listWebhooks', 400, 'the page size is out of range', () => send(webhooks, tooLarge)],
      [
        'listWebhookDeliveries',
        400,
        'the page size is out of range',
        async () => send(`${webhooks}/${await created()}/deliveries`, tooLarge),
      ],
    );
  } else {
    table.push(
      ['createWebhook', 404, 'the tenant does not exist', () => create(tenantHeader('nobody'))],
      ['listWebhooks', 400, 'the tenant header is missing', () => send(webhooks)],
      [
        'listWebhooks',
        404,
        'the tenant does not exist',
        () => send(webhooks, tenantHeader('nobody')),
      ],
    );
  }
  for (const [operationId, path, method, success, body] of byId) {
    const call = async (id: string, request: ApiRequest = {}) =>
      send(await path(id), { method, ...owner, body, ...request });
    table.push(
      [operationId, success, 'the subscription is there', async () => call(await created())],
      [operationId, 401, 'no token is sent', async () => call(await created(), anonymous)],
      [operationId, 403, forbiddenWhy, async () => call(await created(), forbiddenRequest)],
      [operationId, 404, 'there is no such subscription', () => call(unknownId)],
    );
    if (!admin) {
      table.push([
        operationId,
        400,
        'the tenant header is missing',
        async () => send(await path(await created()), { method, body }),
      ]);
    }
  }
  const update = async (request: ApiRequest) =>
    post(`${webhooks}/${await created()}/update`, { ...owner, ...request });
  table.push(
    [
      'redeliverWebhook',
      404,
      'the subscription has no such delivery',
      async () => post(`${webhooks}/${await created()}/deliveries/${unknownId}/redeliver`, owner),
    ],
    ['updateWebhook', 400, 'nothing is given to change', () => update({ body: {} })],
    [
      'updateWebhook',
      413,
      'the body is too large',
      () => update({ body: { description: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'updateWebhook',
      415,
      'the body is not JSON',
      () => update({ body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
  );
  return table.map(([operationId, status, when, run]) => ({
    operationId: operation(operationId),
    status,
    when,
    send: run,
  }));
}
