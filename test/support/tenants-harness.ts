import { queryDatabase, type DidRow, type TenantRow } from './database.js';
import { startTestService, type ApiResponse, type TestService } from './test-service.js';
import { expectFieldErrors, expectProblem } from './problems.js';
import {
  tenantsPath,
  createPath,
  type Tenant,
  type TenantPage,
  type Problem,
  ed25519DidKey,
  isoTimestamp,
} from './api-shapes.js';

/** What the tenant endpoint files share: a running service, row shapes and assertions on tenants. */

/** End-to-end tests of the tenant endpoints (api.md, Routes, Tenant, Pages, Errors): real HTTP, real PostgreSQL. */

export function expectTenantShape(tenant: Tenant): void {
  expect(Object.keys(tenant).sort()).toEqual(
    ['createdAt', 'did', 'id', 'imageUrl', 'label', 'updatedAt'].sort(),
  );
  expect(tenant.did).toMatch(ed25519DidKey);
  expect(tenant.createdAt).toMatch(isoTimestamp);
  expect(tenant.updatedAt).toMatch(isoTimestamp);
}

/** Lets the clock move on, so that a later write gets a later millisecond timestamp. */
export function nextMillisecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

/** Registers the service's start and stop on the calling describe block. */
export function useTenantsService() {
  const context: {
    service: TestService;
  } = {
    service: undefined as unknown as TestService,
  };

  beforeAll(async () => {
    context.service = await startTestService();
  });

  afterAll(async () => {
    await context.service.close();
  });

  /** Setup through the typed client; the tests below send raw HTTP where the request is the point. */
  function createTenant(id: string, label: string, imageUrl?: string): Promise<Tenant> {
    return context.service.client().createTenant({ id, label, imageUrl });
  }

  async function tenantRows(id: string): Promise<TenantRow[]> {
    return queryDatabase<TenantRow>(
      context.service.databaseUrl,
      'SELECT * FROM tenant WHERE id = $1',
      [id],
    );
  }

  async function didRows(tenantId: string): Promise<DidRow[]> {
    return queryDatabase<DidRow>(
      context.service.databaseUrl,
      'SELECT * FROM tenant_did WHERE tenant_id = $1',
      [tenantId],
    );
  }

  /** How many tenants, DIDs and signing keys the database holds: a refused request stored nothing. */
  async function storedCounts(): Promise<{ tenants: number; dids: number; signingKeys: number }> {
    const [row] = await queryDatabase<{ tenants: string; dids: string; signing_keys: string }>(
      context.service.databaseUrl,
      `SELECT (SELECT count(*) FROM tenant) AS tenants, (SELECT count(*) FROM tenant_did) AS dids,
              (SELECT count(*) FROM tenant_signing_key) AS signing_keys`,
    );
    return {
      tenants: Number(row.tenants),
      dids: Number(row.dids),
      signingKeys: Number(row.signing_keys),
    };
  }

  /** Sends a create request that must be refused with 400 and must leave the database as it was. */
  async function expectCreateRefused(
    request: { query?: Record<string, string>; body?: unknown; path?: string },
    code: string,
    fields: string[] = [],
  ): Promise<Problem> {
    const before = await storedCounts();
    const response = await context.service.request(request.path ?? createPath, {
      method: 'POST',
      query: request.query,
      body: request.body,
    });
    const problem = expectProblem(response, 400, code, createPath);
    expectFieldErrors(problem, fields);
    expect(await storedCounts()).toEqual(before);
    return problem;
  }

  async function listTenants(query: Record<string, string>): Promise<ApiResponse<TenantPage>> {
    return context.service.request<TenantPage>(tenantsPath, { query });
  }

  return {
    context,
    createTenant,
    tenantRows,
    didRows,
    storedCounts,
    expectCreateRefused,
    listTenants,
  };
}
