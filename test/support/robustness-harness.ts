import { errorCatalog, problemSlug, type ErrorCode } from '../../src/common/problem/error-codes.js';
import pg from 'pg';
import { startTestService, type ApiResponse, type TestService } from './test-service.js';
import { createPath, type Tenant, type Problem, ed25519DidKey } from './api-shapes.js';

/** What the property-based robustness files share: arbitraries of hostile input, a seeded service and snapshots of what it stored. */

/**
 * Property-based tests over the tenant and DID endpoints (api.md, Tenant, Pages, Errors): whatever a
 * caller sends, the service answers below 500, every refusal is a problem document, and a refused
 * request leaves the database exactly as it was. Real HTTP, real PostgreSQL.
 */

/** The same rule as api.md, Tenant; written out here so the tests do not trust the code under test. */
export const tenantIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const sortValues = ['id', 'label', 'createdAt', 'updatedAt'].flatMap((field) => [
  field,
  `${field},asc`,
  `${field},desc`,
]);

/** About 100 runs per property keeps the whole file well under a minute. */
export const runs = { numRuns: 100 };

export interface TenantRow {
  id: string;
  label: string;
  image_url: string | null;
  updated_at: string;
}

export interface DidRow {
  did: string;
  tenant_id: string;
}

export interface DatabaseSnapshot {
  tenants: TenantRow[];
  dids: DidRow[];
}

/** Fields as a caller may send them: in the query (strings) or in a JSON body (anything). */
export interface TenantFields {
  id?: string;
  label?: string;
  imageUrl?: string;
}

export function codePoints(text: string): number {
  return [...text].length;
}

/** api.md, Tenant: 1-200 characters after trimming, no control characters. */
export function isValidLabel(label: unknown): label is string {
  if (typeof label !== 'string') return false;
  const trimmed = label.trim();
  return codePoints(trimmed) >= 1 && codePoints(trimmed) <= 200 && !/\p{Cc}/u.test(trimmed);
}

/** What any accepted image URL must at least be (api.md, Tenant): http(s), at most 2048 characters. */
export function looksLikeAcceptableImageUrl(imageUrl: string): boolean {
  const trimmed = imageUrl.trim();
  return /^https?:\/\//i.test(trimmed) && codePoints(trimmed) <= 2048 && !/\p{Cc}/u.test(trimmed);
}

/** '' and dot segments do not stay one path segment: such a path names another route (or none). */
export function leavesItsSegment(id: string): boolean {
  return id === '' || id === '.' || id === '..';
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
/** Registers the service's start and stop on the calling describe block. */
export function useRobustnessService() {
  const context: {
    service: TestService;
    database: pg.Client;
  } = {
    service: undefined as unknown as TestService,
    database: undefined as unknown as pg.Client,
  };
  /** One connection for the many snapshots; the context.service uses its own pool. */
  const seedIds = ['seed-alpha', 'Seed.Beta', 'seed_gamma'];

  beforeAll(async () => {
    context.service = await startTestService();
    context.database = new pg.Client({ connectionString: context.service.databaseUrl });
    await context.database.connect();
    for (const id of seedIds) {
      const response = await context.service.request(createPath, {
        method: 'POST',
        query: { id, label: `Seed ${id}` },
      });
      expect(response.status).toBe(201);
    }
  });

  afterAll(async () => {
    await context.database.end();
    await context.service.close();
  });

  async function snapshot(): Promise<DatabaseSnapshot> {
    const tenants = await context.database.query<TenantRow>(
      'SELECT id, label, image_url, updated_at::text AS updated_at FROM tenant ORDER BY id',
    );
    const dids = await context.database.query<DidRow>(
      'SELECT did, tenant_id FROM tenant_did ORDER BY did',
    );
    return { tenants: tenants.rows, dids: dids.rows };
  }

  function withoutTenant(state: DatabaseSnapshot, id: string): DatabaseSnapshot {
    return {
      tenants: state.tenants.filter((row) => row.id !== id),
      dids: state.dids.filter((row) => row.tenant_id !== id),
    };
  }

  function exists(state: DatabaseSnapshot, id: string): boolean {
    return state.tenants.some((row) => row.id === id);
  }

  /** Never a server error; a refusal is a complete problem document with a catalogued code. */
  function expectWellFormed(response: ApiResponse, path: string): void {
    expect(response.status).toBeLessThan(500);
    if (response.status < 400) return;
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const problem = response.body as Problem;
    expect(problem).toEqual(
      expect.objectContaining({
        type: expect.any(String),
        title: expect.any(String),
        status: response.status,
        detail: expect.any(String),
        instance: new URL(path, context.service.url).pathname,
        code: expect.any(String),
      }),
    );
    expect(Object.hasOwn(errorCatalog, problem.code)).toBe(true);
    const code = problem.code as ErrorCode;
    expect(errorCatalog[code]).toEqual({ status: response.status, title: problem.title });
    expect(problem.type).toBe(
      `${context.service.publicBaseUrl}/ctrl/problems/${problemSlug(code)}`,
    );
  }

  function problemCode(response: ApiResponse): string {
    return (response.body as Problem).code;
  }

  /** After an accepted create: exactly one new tenant with one DID, and nothing else touched. */
  function expectCreated(
    response: ApiResponse,
    id: unknown,
    label: unknown,
    imageUrl: unknown,
    before: DatabaseSnapshot,
    after: DatabaseSnapshot,
  ): void {
    const tenant = response.body as Tenant;
    expect(typeof id === 'string' && tenantIdPattern.test(id)).toBe(true);
    expect(isValidLabel(label)).toBe(true);
    expect(exists(before, tenant.id)).toBe(false);
    expect(tenant.id).toBe(id);
    expect(tenant.label).toBe((label as string).trim());
    expect(tenant.did).toMatch(ed25519DidKey);
    // An empty or absent image URL means no image; a given one is stored trimmed.
    const givenImageUrl = typeof imageUrl === 'string' ? imageUrl.trim() : null;
    expect(tenant.imageUrl).toBe(givenImageUrl === '' ? null : givenImageUrl);
    if (tenant.imageUrl !== null) expect(looksLikeAcceptableImageUrl(tenant.imageUrl)).toBe(true);
    expect(after.tenants).toHaveLength(before.tenants.length + 1);
    expect(after.dids).toHaveLength(before.dids.length + 1);
    expect(after.tenants.find((row) => row.id === tenant.id)).toMatchObject({
      label: tenant.label,
      image_url: tenant.imageUrl,
    });
    expect(after.dids.filter((row) => row.tenant_id === tenant.id)).toEqual([
      { did: tenant.did, tenant_id: tenant.id },
    ]);
    expect(withoutTenant(after, tenant.id)).toEqual(before);
  }

  return {
    context,
    snapshot,
    withoutTenant,
    exists,
    expectWellFormed,
    problemCode,
    expectCreated,
    seedIds,
  };
}
