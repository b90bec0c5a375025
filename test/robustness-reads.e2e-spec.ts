import fc from 'fast-check';
import { type TestService } from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  updatePath,
  didPath,
  didDocumentPath,
  type Tenant,
  type TenantPage,
} from './support/api-shapes.js';
import {
  tenantIdPattern,
  sortValues,
  runs,
  codePoints,
  leavesItsSegment,
  useRobustnessService,
} from './support/robustness-harness.js';
import {
  validTenantId,
  anyTenantId,
  unknownFieldName,
  anyPage,
  anySize,
  anySort,
  anyQ,
  printableLatin1,
} from './support/hostile-input.js';

/** Reads and unknown fields under arbitrary input (fast-check): never a 5xx, always a problem body, nothing changed. */
describe('robustness of the tenant and DID reads under arbitrary input', () => {
  const harness = useRobustnessService();
  const { snapshot, exists, expectWellFormed, problemCode, seedIds } = harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

  describe('GET /tenants/{id}', () => {
    it('answers any id without a server error or a change, with the tenant exactly when it exists', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.constantFrom(...seedIds), anyTenantId), async (id) => {
          const path = tenantPath(id);
          const before = await snapshot();
          const response = await service.request(path);
          const after = await snapshot();

          expectWellFormed(response, path);
          expect(after).toEqual(before);
          if (leavesItsSegment(id)) return;
          if (response.status === 200) {
            const tenant = response.body as Tenant;
            expect(tenant.id).toBe(id);
            const row = before.tenants.find((candidate) => candidate.id === id);
            expect(row).toMatchObject({ label: tenant.label, image_url: tenant.imageUrl });
            return;
          }
          if (tenantIdPattern.test(id)) {
            expect(exists(before, id)).toBe(false);
            expect(response.status).toBe(404);
            expect(problemCode(response)).toBe('TENANT_NOT_FOUND');
          } else {
            expect([400, 404]).toContain(response.status);
          }
        }),
        runs,
      );
    });
  });

  describe('GET /tenants', () => {
    const listQuery = fc.record(
      { page: anyPage, size: anySize, sort: anySort, q: anyQ },
      { requiredKeys: [] },
    );

    function pageIsValid(page: string | undefined): boolean {
      return page === undefined || (/^\d{1,9}$/.test(page) && Number(page) <= 100_000_000);
    }

    function sizeIsValid(size: string | undefined): boolean {
      return (
        size === undefined || (/^\d{1,9}$/.test(size) && Number(size) >= 1 && Number(size) <= 100)
      );
    }

    function qIsValid(q: string | undefined): boolean {
      return q === undefined || (codePoints(q) <= 200 && !/\p{Cc}/u.test(q));
    }

    it('answers any page query without a server error or a change, refusing exactly the out-of-range values', async () => {
      await fc.assert(
        fc.asyncProperty(
          listQuery,
          fc.option(fc.tuple(unknownFieldName, fc.string({ maxLength: 5 })), { nil: undefined }),
          async (query, extra) => {
            const sent: Record<string, string> = { ...query };
            if (extra !== undefined && !['page', 'size', 'sort', 'q'].includes(extra[0])) {
              sent[extra[0]] = extra[1];
            }
            const hasUnknown = Object.keys(sent).length > Object.keys(query).length;
            const before = await snapshot();
            const response = await service.request<TenantPage>(tenantsPath, { query: sent });
            const after = await snapshot();

            expectWellFormed(response, tenantsPath);
            expect(after).toEqual(before);
            const valid =
              !hasUnknown &&
              pageIsValid(query.page) &&
              sizeIsValid(query.size) &&
              (query.sort === undefined || sortValues.includes(query.sort)) &&
              qIsValid(query.q);
            const plainlyInvalid =
              hasUnknown ||
              (query.page !== undefined && !/^\d+$/.test(query.page)) ||
              !sizeIsValid(query.size) ||
              (query.sort !== undefined && !sortValues.includes(query.sort)) ||
              (query.q !== undefined && /\p{Cc}/u.test(query.q));
            if (valid) expect(response.status).toBe(200);
            if (plainlyInvalid) {
              expect(response.status).toBe(400);
              expect(problemCode(response)).toBe('VALIDATION_FAILED');
            }
            if (response.status !== 200) return;

            // Never a silent clamp (api.md, Pages): the page says what was asked for.
            const page = response.body;
            const size = query.size === undefined ? 20 : Number(query.size);
            expect(page.number).toBe(query.page === undefined ? 0 : Number(query.page));
            expect(page.size).toBe(size);
            expect(page.content.length).toBeLessThanOrEqual(size);
            expect(page.totalPages).toBe(Math.ceil(page.totalElements / size));
            expect(page.totalElements).toBeLessThanOrEqual(before.tenants.length);
            if (query.q !== undefined && /^[\x20-\x7e]*$/.test(query.q)) {
              const needle = query.q.toLowerCase();
              for (const tenant of page.content) {
                expect(
                  tenant.id.toLowerCase().includes(needle) ||
                    tenant.label.toLowerCase().includes(needle),
                ).toBe(true);
              }
            }
            if (query.q === undefined || query.q === '') {
              expect(page.totalElements).toBe(before.tenants.length);
            }
          },
        ),
        runs,
      );
    });
  });

  describe('GET /did and /did/document', () => {
    const tenantHeader = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...seedIds) },
      { weight: 2, arbitrary: validTenantId },
      { weight: 3, arbitrary: fc.string({ unit: printableLatin1, maxLength: 70 }) },
      {
        weight: 1,
        arbitrary: fc.string({ unit: printableLatin1, minLength: 65, maxLength: 2000 }),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          ' ',
          'seed-alpha, Seed.Beta',
          'SEED-ALPHA',
          ' seed-alpha',
          '\u00e9',
        ),
      },
    );

    it('answers any x-tenant-id without a server error or a change: the DID of a known tenant, 400 when malformed, 404 when unknown', async () => {
      await fc.assert(
        fc.asyncProperty(
          tenantHeader,
          fc.constantFrom(didPath, didDocumentPath),
          async (header, path) => {
            // fetch strips leading and trailing spaces from header values: the service sees this.
            const sent = header.replace(/^[\t ]+|[\t ]+$/g, '');
            const before = await snapshot();
            const response = await service.request(path, { headers: { 'x-tenant-id': header } });
            const after = await snapshot();

            expectWellFormed(response, path);
            expect(after).toEqual(before);
            const did = before.dids.find((row) => row.tenant_id === sent)?.did;
            if (!tenantIdPattern.test(sent)) {
              expect(response.status).toBe(400);
              expect(['TENANT_HEADER_INVALID', 'TENANT_HEADER_MISSING']).toContain(
                problemCode(response),
              );
            } else if (did === undefined) {
              expect(response.status).toBe(404);
              expect(problemCode(response)).toBe('TENANT_NOT_FOUND');
            } else {
              expect(response.status).toBe(200);
              expect((response.body as { id: string }).id).toBe(did);
            }
          },
        ),
        runs,
      );
    });
  });

  describe('unknown fields', () => {
    const prototypeMemberName = fc.constantFrom(
      'constructor',
      '__proto__',
      'toString',
      'hasOwnProperty',
      'valueOf',
      // Found by the page-query property: also slipped past the whitelist.
      'prototype',
    );

    it('refuses unknown fields named like members of every JavaScript object, as it refuses any other unknown field', async () => {
      await fc.assert(
        fc.asyncProperty(
          validTenantId,
          prototypeMemberName,
          fc.constantFrom('create query', 'create body', 'update body', 'list query'),
          async (id, name, where) => {
            const before = await snapshot();
            fc.pre(!exists(before, id));
            const path =
              where === 'update body'
                ? updatePath('seed-alpha')
                : where === 'list query'
                  ? tenantsPath
                  : createPath;
            const response = await service.request(path, {
              method: where === 'list query' ? 'GET' : 'POST',
              ...(where === 'create query' ? { query: { id, label: 'Strict', [name]: 'x' } } : {}),
              ...(where === 'create body'
                ? { body: JSON.stringify({ id, label: 'Strict', [name]: 'x' }) }
                : {}),
              ...(where === 'update body'
                ? { body: JSON.stringify({ label: 'Strict', [name]: 'x' }) }
                : {}),
              ...(where === 'list query' ? { query: { [name]: 'x' } } : {}),
            });
            const after = await snapshot();

            expectWellFormed(response, path);
            expect({ where, name, status: response.status }).toEqual({ where, name, status: 400 });
            expect(after).toEqual(before);
          },
        ),
        { numRuns: 20 },
      );
    });
  });
});
