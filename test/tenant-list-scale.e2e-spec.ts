import { queryDatabase } from './support/database.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * The tenant list past the size it counts exactly (docs/api.md, Pages): pages come from a
 * deferred join on the sort index, an unfiltered total is PostgreSQL's estimate, a filtered one is exact.
 */

const tenantsPath = '/ctrl/api/v1.0/tenants';
/** Above the service's exact-count limit (10,000). */
const seeded = 12_000;

interface TenantPage {
  content: { id: string; label: string; did: string }[];
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

describe('the tenant list with more tenants than it counts exactly', () => {
  let service: TestService;

  async function page(query: string): Promise<TenantPage> {
    const response = await service.request<TenantPage>(`${tenantsPath}?${query}`);
    expect(response.status).toBe(200);
    return response.body;
  }

  async function idsInSql(orderBy: string, offset: number, limit: number): Promise<string[]> {
    const rows = await queryDatabase<{ id: string }>(
      service.databaseUrl,
      `SELECT id FROM tenant ORDER BY ${orderBy} OFFSET $1 LIMIT $2`,
      [offset, limit],
    );
    return rows.map((row) => row.id);
  }

  beforeAll(async () => {
    service = await startTestService();
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO tenant (id, label, created_at, updated_at)
       SELECT 'scale-' || lpad(n::text, 5, '0'), 'Scale tenant ' || n, stamp, stamp
       FROM generate_series(1, $1::int) AS n,
            LATERAL (SELECT timestamptz '2026-01-01' + (n / 3) * interval '1 second' AS stamp) AS s`,
      [seeded],
    );
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO tenant_did (did, tenant_id, method, key_type, public_key, private_key_sealed,
                               master_key_id)
       SELECT 'did:key:z6MkScale' || id, id, 'key', 'ed25519', sha256(convert_to(id, 'UTF8')),
              '\\x00', 'test'
       FROM tenant`,
    );
    // What autovacuum does after a bulk load: the statistics the estimate comes from.
    await queryDatabase(service.databaseUrl, 'VACUUM ANALYZE tenant, tenant_did');
  });

  afterAll(async () => {
    await service?.close();
  });

  it('returns the same deep page as ORDER BY with OFFSET, ties broken by id', async () => {
    // Three tenants share each createdAt, so the id decides the order within a second.
    const deep = await page('page=450&size=20');
    expect(deep.content.map((tenant) => tenant.id)).toEqual(
      await idsInSql('created_at DESC, id DESC', 450 * 20, 20),
    );
    expect(deep.content.every((tenant) => tenant.did === `did:key:z6MkScale${tenant.id}`)).toBe(
      true,
    );
    const byLabel = await page('page=321&size=17&sort=label,asc');
    expect(byLabel.content.map((tenant) => tenant.id)).toEqual(
      await idsInSql('label ASC, id ASC', 321 * 17, 17),
    );
  });

  it('seeks deep pages from anchors to the same rows as ORDER BY with OFFSET, in every order', async () => {
    const orders: [string, string][] = [
      ['createdAt,desc', 'created_at DESC, id DESC'],
      ['createdAt,asc', 'created_at ASC, id ASC'],
      ['updatedAt,desc', 'updated_at DESC, id DESC'],
      ['label,asc', 'label ASC, id ASC'],
      ['label,desc', 'label DESC, id DESC'],
      ['id,asc', 'id ASC'],
      ['id,desc', 'id DESC'],
    ];
    // Around the anchors (every 1,000th row): just before, at, and just after one, and far in.
    const windows: [number, number][] = [
      [49, 20],
      [50, 20],
      [99, 10],
      [100, 10],
      [333, 3],
      [537, 20],
      [1199, 10],
    ];
    for (const [sort, orderBy] of orders) {
      for (const [number, size] of windows) {
        const got = await page(`page=${number}&size=${size}&sort=${sort}`);
        expect({ sort, number, ids: got.content.map((tenant) => tenant.id) }).toEqual({
          sort,
          number,
          ids: await idsInSql(orderBy, number * size, size),
        });
      }
    }
  });

  it('shows a change made through this instance on the next deep page at once', async () => {
    const before = await page('page=300&size=20&sort=label,asc');
    // "Scale tenant 1..." sorts before most labels: a new first label moves every deep row by one.
    await service.client().createTenant({ id: 'aaa-first', label: 'A first label' });
    const after = await page('page=300&size=20&sort=label,asc');
    expect(after.content.map((tenant) => tenant.id)).toEqual(
      await idsInSql('label ASC, id ASC', 300 * 20, 20),
    );
    expect(after.content[1].id).toBe(before.content[0].id);
    await service.client().deleteTenant('aaa-first');
    const again = await page('page=300&size=20&sort=label,asc');
    expect(again.content.map((tenant) => tenant.id)).toEqual(
      before.content.map((tenant) => tenant.id),
    );
  });

  it('reports an unfiltered total close to the real one, with pages to match', async () => {
    const first = await page('page=0&size=20');
    expect(Math.abs(first.totalElements - seeded)).toBeLessThanOrEqual(seeded * 0.1);
    expect(first.totalPages).toBe(Math.ceil(first.totalElements / 20));
  });

  it('reports the exact total on the last page', async () => {
    // 12,000 = 1714 * 7 + 2: page 1714 holds the last two.
    const last = await page('page=1714&size=7');
    expect(last.content).toHaveLength(2);
    expect(last).toMatchObject({ totalElements: seeded, totalPages: 1715 });
  });

  it('counts a filtered list exactly', async () => {
    // "Scale tenant 11", 110-119, 1100-1199 and 11000-11999.
    const searched = await page('page=0&size=20&q=scale%20tenant%2011');
    expect(searched).toMatchObject({ totalElements: 1111, totalPages: 56 });
    expect(searched.content).toHaveLength(20);
  });
});
