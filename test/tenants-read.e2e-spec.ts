import { expectProblem, expectFieldErrors } from './support/problems.js';
import { type TestService } from './support/test-service.js';
import {
  tenantsPath,
  tenantPath,
  type Tenant,
  type TenantPage,
  updatePath,
} from './support/api-shapes.js';
import {
  expectTenantShape,
  nextMillisecond,
  useTenantsService,
} from './support/tenants-harness.js';

/** Reading tenants, one or a page at a time (api.md, Routes, Pages): real HTTP, real PostgreSQL. */
describe('Tenant endpoints: reading', () => {
  const harness = useTenantsService();
  const { createTenant, storedCounts, listTenants } = harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

  describe('GET /tenants/{id}', () => {
    it('answers 200 with the tenant as it was created', async () => {
      const created = await createTenant('get-one', 'Get Corp', 'https://get.example/logo.png');

      const response = await service.request<Tenant>(tenantPath('get-one'));

      expect(response.status).toBe(200);
      expectTenantShape(response.body);
      expect(response.body).toEqual(created);
    });

    it('answers 404 TENANT_NOT_FOUND for an unknown tenant', async () => {
      const response = await service.request(tenantPath('get-ghost'));

      const problem = expectProblem(response, 404, 'TENANT_NOT_FOUND', tenantPath('get-ghost'));
      expect(problem.detail).toContain('get-ghost');
    });

    it('does not find a tenant under another case of its id', async () => {
      await createTenant('get-Case', 'Case Corp');

      const response = await service.request(tenantPath('get-case'));

      expectProblem(response, 404, 'TENANT_NOT_FOUND', tenantPath('get-case'));
    });

    it.each([
      ['starting with a dash', '-bad'],
      ['65 characters long', `a${'b'.repeat(64)}`],
      ['containing a space', 'has space'],
    ])('refuses a path id %s with 400', async (_case, id) => {
      const response = await service.request(tenantPath(id));

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantPath(id));
      expectFieldErrors(problem, ['id']);
    });
  });

  describe('GET /tenants', () => {
    it('answers a Spring-style page of 20 newest-first tenants by default', async () => {
      const ids = Array.from(
        { length: 25 },
        (_, index) => `dflt-${String(index).padStart(2, '0')}`,
      );
      for (const id of ids) await createTenant(id, `Default ${id}`);

      const response = await listTenants({ q: 'dflt-' });

      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(
        ['content', 'number', 'size', 'totalElements', 'totalPages'].sort(),
      );
      expect(response.body).toMatchObject({
        number: 0,
        size: 20,
        totalElements: 25,
        totalPages: 2,
      });
      expect(response.body.content.map((tenant) => tenant.id)).toEqual(
        [...ids].reverse().slice(0, 20),
      );
      for (const tenant of response.body.content) expectTenantShape(tenant);
    });

    it('counts every tenant in the database when no filter is given', async () => {
      const response = await listTenants({});

      expect(response.status).toBe(200);
      expect(response.body.number).toBe(0);
      expect(response.body.size).toBe(20);
      const { tenants } = await storedCounts();
      expect(response.body.totalElements).toBe(tenants);
      expect(response.body.totalPages).toBe(Math.ceil(tenants / 20));
      expect(response.body.content).toHaveLength(Math.min(tenants, 20));
    });

    it('pages through all matching tenants without duplicates or gaps', async () => {
      const ids = Array.from({ length: 7 }, (_, index) => `pgx-${index}`);
      for (const id of ids) await createTenant(id, `Paged ${id}`);

      const pages: TenantPage[] = [];
      for (const page of ['0', '1', '2']) {
        const response = await listTenants({ q: 'pgx-', size: '3', page, sort: 'id,asc' });
        expect(response.status).toBe(200);
        pages.push(response.body);
      }

      expect(pages.map((page) => page.content.length)).toEqual([3, 3, 1]);
      expect(pages.map((page) => page.number)).toEqual([0, 1, 2]);
      for (const page of pages) {
        expect(page).toMatchObject({ size: 3, totalElements: 7, totalPages: 3 });
      }
      expect(pages.flatMap((page) => page.content.map((tenant) => tenant.id))).toEqual(ids);
    });

    it('pages newest first without duplicates or gaps in the default order', async () => {
      const seen: string[] = [];
      for (const page of ['0', '1', '2']) {
        const response = await listTenants({ q: 'pgx-', size: '3', page });
        seen.push(...response.body.content.map((tenant) => tenant.id));
      }

      expect(seen).toEqual(['pgx-6', 'pgx-5', 'pgx-4', 'pgx-3', 'pgx-2', 'pgx-1', 'pgx-0']);
    });

    it('answers an empty page with the right totals for a page beyond the end', async () => {
      const response = await listTenants({ q: 'pgx-', size: '3', page: '5' });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        content: [],
        number: 5,
        size: 3,
        totalElements: 7,
        totalPages: 3,
      });
    });

    it('accepts the smallest and the largest page size', async () => {
      const smallest = await listTenants({ q: 'pgx-', size: '1' });
      const largest = await listTenants({ q: 'pgx-', size: '100' });

      expect(smallest.status).toBe(200);
      expect(smallest.body).toMatchObject({ size: 1, totalElements: 7, totalPages: 7 });
      expect(smallest.body.content).toHaveLength(1);
      expect(largest.status).toBe(200);
      expect(largest.body).toMatchObject({ size: 100, totalElements: 7, totalPages: 1 });
      expect(largest.body.content).toHaveLength(7);
    });

    it.each(['0', '101', '-1', 'abc', '1.5', ''])(
      'refuses the page size %p with 400 instead of clamping it',
      async (size) => {
        const response = await listTenants({ size });

        const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantsPath);
        expectFieldErrors(problem, ['size']);
      },
    );

    it.each(['-1', 'abc', '1.5'])('refuses the page number %p with 400', async (page) => {
      const response = await listTenants({ page });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantsPath);
      expectFieldErrors(problem, ['page']);
    });

    it('refuses an unknown query parameter with 400 naming it', async () => {
      const response = await listTenants({ limit: '10' });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantsPath);
      expectFieldErrors(problem, ['limit']);
    });

    describe('sorting', () => {
      // Created in the order c, a, d, b; labels sort b, d, a, c; images set in the order d, b, c, a.
      const sortFixture = [
        { id: 'srtx-c', label: 'Sort Delta' },
        { id: 'srtx-a', label: 'Sort Charlie' },
        { id: 'srtx-d', label: 'Sort Bravo' },
        { id: 'srtx-b', label: 'Sort Alpha' },
      ];
      const ascending: Record<string, string[]> = {
        id: ['srtx-a', 'srtx-b', 'srtx-c', 'srtx-d'],
        label: ['srtx-b', 'srtx-d', 'srtx-a', 'srtx-c'],
        createdAt: ['srtx-c', 'srtx-a', 'srtx-d', 'srtx-b'],
        updatedAt: ['srtx-d', 'srtx-b', 'srtx-c', 'srtx-a'],
      };

      beforeAll(async () => {
        for (const { id, label } of sortFixture) await createTenant(id, label);
        for (const id of ascending.updatedAt) {
          await nextMillisecond();
          const response = await service.request(updatePath(id), {
            method: 'POST',
            query: { imageUrl: `https://sort.example/${id}.png` },
          });
          expect(response.status).toBe(200);
        }
      });

      it.each(
        ['id', 'label', 'createdAt', 'updatedAt'].flatMap((field) => [
          [field, `${field},asc`, 'ascending'],
          [field, `${field},desc`, 'descending'],
          [field, field, 'ascending'],
        ]),
      )('sorts by %s with sort=%s in %s order', async (field, sort, order) => {
        const response = await listTenants({ q: 'srtx-', sort });

        expect(response.status).toBe(200);
        const expected = [...ascending[field]];
        if (order === 'descending') expected.reverse();
        expect(response.body.content.map((tenant) => tenant.id)).toEqual(expected);
      });

      it.each(['name', 'id,up', 'label,asc,desc', 'created_at', 'ID', ',asc', ''])(
        'refuses sort=%p with 400',
        async (sort) => {
          const response = await listTenants({ sort });

          const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantsPath);
          expectFieldErrors(problem, ['sort']);
        },
      );
    });

    describe('searching with q', () => {
      beforeAll(async () => {
        await createTenant('qx-AcmeWorks', 'Rocket Works');
        await createTenant('qx-holdings', 'The ACME Holdings');
        await createTenant('qx-other', 'Somebody Else');
        await createTenant('qx-pct1', 'Growth 100% sure');
        await createTenant('qx-pct2', 'Growth 1000 sure');
        await createTenant('qx-snake_case', 'Snake One');
        await createTenant('qx-snakeXcase', 'Snake Two');
        await createTenant('qx-backslash', 'Back\\slash');
        await createTenant('qx-backslashless', 'Backslash');
      });

      async function searchIds(q: string): Promise<string[]> {
        const response = await listTenants({ q, sort: 'id,asc', size: '100' });
        expect(response.status).toBe(200);
        // Other tests' tenants may match too; this fixture holds the near misses that matter here.
        return response.body.content
          .map((tenant) => tenant.id)
          .filter((id) => id.startsWith('qx-'));
      }

      it('matches the id or the label regardless of case', async () => {
        expect(await searchIds('acme')).toEqual(['qx-AcmeWorks', 'qx-holdings']);
        expect(await searchIds('ACME')).toEqual(['qx-AcmeWorks', 'qx-holdings']);
      });

      it('matches anywhere in the label, not only at its start', async () => {
        expect(await searchIds('CKET wo')).toEqual(['qx-AcmeWorks']);
      });

      it('counts only the matching tenants in the totals', async () => {
        const response = await listTenants({ q: 'QX-SNAKE', size: '1' });

        expect(response.body).toMatchObject({ totalElements: 2, totalPages: 2 });
      });

      it('matches a percent sign literally, not as a wildcard', async () => {
        expect(await searchIds('100%')).toEqual(['qx-pct1']);
      });

      it('matches an underscore literally, not as a wildcard', async () => {
        expect(await searchIds('e_c')).toEqual(['qx-snake_case']);
      });

      it('matches a backslash literally', async () => {
        expect(await searchIds('k\\s')).toEqual(['qx-backslash']);
      });

      it('answers an empty page when nothing matches', async () => {
        const response = await listTenants({ q: 'qx-nothing-like-this' });

        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          content: [],
          number: 0,
          size: 20,
          totalElements: 0,
          totalPages: 0,
        });
      });
    });
  });
});
