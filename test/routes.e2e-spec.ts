import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { ModulesContainer } from '@nestjs/core';
import { accessRuleKey } from '../src/auth/access.decorators.js';
import { startTestService, type TestService } from './support/test-service.js';

interface RouteInventoryEntry {
  route: string;
  access: string | undefined;
}

/** Every route the app serves, found by reflection, with the access rule it declares. */
function inventory(service: TestService): RouteInventoryEntry[] {
  const entries: RouteInventoryEntry[] = [];
  for (const module of service.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (controller === null) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
      const prototype = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = prototype[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method =
          RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
        entries.push({
          // The root route keeps its one slash: `GET /`.
          route: `${method} /${base}/${path}`.replace(/\/{2,}/g, '/').replace(/(?<! )\/$/, ''),
          access:
            (Reflect.getMetadata(accessRuleKey, handler) as string | undefined) ??
            (Reflect.getMetadata(accessRuleKey, controller) as string | undefined),
        });
      }
    }
  }
  return entries;
}

describe('route inventory', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('gives every route an access rule', () => {
    const routes = inventory(service);
    expect(routes.length).toBeGreaterThanOrEqual(9);
    expect(routes.filter((entry) => entry.access === undefined)).toEqual([]);
  });

  it('keeps the API closed except for what is meant to be public', () => {
    const publicRoutes = inventory(service)
      .filter((entry) => entry.access === 'public')
      .map((entry) => entry.route)
      .sort();
    expect(publicRoutes.filter((route) => !route.includes(' /auth/realms/agent-cloud/'))).toEqual([
      // A browser opening the origin is sent to the API explorer.
      'GET /',
      // Verifiers find the keys of an SD-JWT VC's issuer from the credential alone.
      'GET /.well-known/jwt-vc-issuer/ctrl/oid4vci/:tenantId',
      // Wallets discover each tenant's OpenID4VCI issuer before they hold any token.
      'GET /.well-known/oauth-authorization-server/ctrl/oid4vci/:tenantId',
      'GET /.well-known/openid-credential-issuer/ctrl/oid4vci/:tenantId',
      // Verifiers check a document signer against its authority's CRL (ISO/IEC 18013-5 Annex B).
      'GET /ctrl/certificate-authorities/:authorityId/crl',
      'GET /ctrl/health/live',
      'GET /ctrl/health/ready',
      // The same discovery where wallets built on the drafts look for it.
      'GET /ctrl/oid4vci/:tenantId/.well-known/oauth-authorization-server',
      'GET /ctrl/oid4vci/:tenantId/.well-known/openid-credential-issuer',
      // The authorization code flow's browser steps: the pushed request's authorize, the login's return.
      'GET /ctrl/oid4vci/:tenantId/authorize',
      // A wallet fetches the offer its link names (credential_offer_uri) before it holds any token.
      'GET /ctrl/oid4vci/:tenantId/credential-offers/:reference',
      'GET /ctrl/oid4vci/:tenantId/login/callback',
      // A wallet fetches the presentation request its link names (request_uri), by GET or POST.
      'GET /ctrl/oid4vp/:tenantId/requests/:reference',
      'GET /ctrl/problems',
      'GET /ctrl/problems/:slug',
      // Verifiers anywhere read a credential's status without an account.
      'GET /ctrl/status-lists/:tenantId/:listId',
      'GET /ctrl/status-lists/:tenantId/:listId/token',
      // Wallets redeem an offer's pre-authorized code; the later calls carry its access token.
      'POST /ctrl/oid4vci/:tenantId/credential',
      'POST /ctrl/oid4vci/:tenantId/nonce',
      'POST /ctrl/oid4vci/:tenantId/notification',
      // The authorization code flow's pushed authorization request (RFC 9126).
      'POST /ctrl/oid4vci/:tenantId/par',
      'POST /ctrl/oid4vci/:tenantId/token',
      'POST /ctrl/oid4vp/:tenantId/requests/:reference',
      // The wallet's answer to a presentation request (response_uri).
      'POST /ctrl/oid4vp/:tenantId/requests/:reference/response',
    ]);
  });

  it('reserves tenant management for administrators', () => {
    const byRoute = Object.fromEntries(
      inventory(service).map((entry) => [entry.route, entry.access]),
    );
    expect(byRoute).toMatchObject({
      'POST /ctrl/api/v1.0/tenants/create': 'admin',
      'POST /ctrl/api/v1.0/tenants/:id/update': 'admin',
      'POST /ctrl/api/v1.0/tenants/:id/delete': 'admin',
      'GET /ctrl/api/v1.0/tenants': 'authenticated',
      'GET /ctrl/api/v1.0/tenants/:id': 'authenticated',
      'GET /ctrl/api/v1.0/did': 'tenant',
      'GET /ctrl/api/v1.0/did/document': 'tenant',
      'POST /ctrl/api/v1.0/credentials/issue': 'tenant',
      'GET /ctrl/api/v1.0/credentials': 'tenant',
      'GET /ctrl/api/v1.0/credentials/:id': 'tenant',
      'POST /ctrl/api/v1.0/credentials/verify': 'tenant',
      'POST /ctrl/api/v1.0/credentials/status': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/create': 'tenant',
      'GET /ctrl/api/v1.0/webhooks': 'tenant',
      'GET /ctrl/api/v1.0/webhooks/:id': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/:id/delete': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/:id/update': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/:id/rotate-secret': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/:id/test': 'tenant',
      'GET /ctrl/api/v1.0/webhooks/:id/deliveries': 'tenant',
      'POST /ctrl/api/v1.0/webhooks/:id/deliveries/:deliveryId/redeliver': 'tenant',
      'POST /ctrl/api/v1.0/admin/webhooks/create': 'admin',
      'GET /ctrl/api/v1.0/admin/webhooks': 'admin',
      'GET /ctrl/api/v1.0/admin/webhooks/:id': 'admin',
      'POST /ctrl/api/v1.0/admin/webhooks/:id/delete': 'admin',
      'POST /ctrl/api/v1.0/admin/webhooks/:id/update': 'admin',
      'POST /ctrl/api/v1.0/admin/webhooks/:id/rotate-secret': 'admin',
      'POST /ctrl/api/v1.0/admin/webhooks/:id/test': 'admin',
      'GET /ctrl/api/v1.0/admin/webhooks/:id/deliveries': 'admin',
      'POST /ctrl/api/v1.0/admin/webhooks/:id/deliveries/:deliveryId/redeliver': 'admin',
      'POST /ctrl/api/v1.0/presentations/verify': 'tenant',
      'POST /ctrl/status-lists/:tenantId/:listId/publish': 'authenticated',
    });
  });
});
