import { queryDatabase } from './support/database.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;
interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

const offerHashes = ['pre_authorized_code_hash', 'reference_hash'];

/** The most rows any step of the plan produced or threw away: what the statement had to read. */
function rowsRead(node: PlanNode): number {
  const own =
    node['Actual Rows'] * node['Actual Loops'] +
    (node['Rows Removed by Filter'] ?? 0) +
    (node['Rows Removed by Index Recheck'] ?? 0);
  return Math.max(own, ...(node.Plans ?? []).map(rowsRead));
}

/**
 * The per-tenant caps count a tenant's open offers and pending requests before each create
 * (docs/architecture.md, Per-tenant caps): that count reads the tenant's own open rows, however many
 * other tenants keep open and however many the tenant had before, so that neither slows a create.
 */
describe('the per-tenant caps’ counts', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['template', 'quiet']) {
      await service.client().createTenant({ id, label: id });
      await service.client().createCredentialConfiguration(id, sdJwtBadge);
    }
    const post = async (path: string, tenantId: string, body: Json) => {
      const answer = await service.request<Json>(path, {
        method: 'POST',
        headers: { 'x-tenant-id': tenantId },
        body,
      });
      expect(answer.status).toBe(201);
      return answer.body.id as string;
    };
    const offer = { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } };
    const request = {
      dcqlQuery: {
        credentials: [{ id: 'badge', format: 'dc+sd-jwt', meta: { vct_values: [sdJwtBadge.vct] } }],
      },
    };
    const templateOffer = await post('/ctrl/api/v1.0/oid4vci/offers', 'template', offer);
    const templateRequest = await post('/ctrl/api/v1.0/oid4vp/requests', 'template', request);
    const quietOffer = await post('/ctrl/api/v1.0/oid4vci/offers', 'quiet', offer);
    const quietRequest = await post('/ctrl/api/v1.0/oid4vp/requests', 'quiet', request);
    for (let n = 0; n < 2; n++) {
      await post('/ctrl/api/v1.0/oid4vci/offers', 'quiet', offer);
      await post('/ctrl/api/v1.0/oid4vp/requests', 'quiet', request);
    }
    // Copies of a row, each with its own id and hashes, for `tenant` (an expression of the copy's
    // number g), open or ended long ago.
    const copies = async (
      table: string,
      id: string,
      count: number,
      tenant: string,
      ended: boolean,
    ) => {
      const hashes = table === 'oid4vci_offer' ? offerHashes : ['reference_hash'];
      await queryDatabase(
        service.databaseUrl,
        `INSERT INTO ${table}
         SELECT (jsonb_populate_record(o, jsonb_build_object('id', gen_random_uuid(),
                  'tenant_id', ${tenant}
                  ${hashes.map((column) => `, '${column}', '\\x' || encode(sha256((g::text || $1 || ${tenant} || '${column}${ended}')::bytea), 'hex')`).join('')}
                  ${ended ? `, 'status', 'expired', 'expires_at', now() - interval '1 day'` : ''}))).*
           FROM ${table} o, generate_series(1, $2) g
          WHERE o.id = $1::uuid`,
        [id, count],
      );
    };
    // As a service of many tenants holds them: copies of the template tenant's rows for 40 others, each
    // with open rows and a longer history, and the quiet tenant with a long history of its own and 3 open.
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO tenant (id, label) SELECT 'other' || n, 'Other' FROM generate_series(0, 39) n`,
    );
    const other = `'other' || (g % 40)`;
    for (const [table, template, quiet] of [
      ['oid4vci_offer', templateOffer, quietOffer],
      ['oid4vp_request', templateRequest, quietRequest],
    ] as const) {
      await copies(table, template, 40 * 50, other, false);
      await copies(table, template, 40 * 150, other, true);
      await copies(table, quiet, 2_000, `'quiet'`, true);
    }
    await queryDatabase(service.databaseUrl, 'ANALYZE oid4vci_offer, oid4vp_request');
  }, 120_000);
  afterAll(() => service.close());

  /** The plan of `count` (the same condition as the cap's function counts by) for the quiet tenant. */
  const planOf = async (count: string) => {
    const [row] = await queryDatabase<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      service.databaseUrl,
      `EXPLAIN (ANALYZE, FORMAT JSON) ${count}`,
      ['quiet', new Date()],
    );
    return row['QUERY PLAN'][0].Plan;
  };

  it('reads the tenant’s own open offers alone (insert_offer_within_cap)', async () => {
    const plan = await planOf(
      `SELECT count(*) FROM oid4vci_offer c
        WHERE c.tenant_id = $1 AND c.status IN ('offered', 'accepted') AND c.expires_at > $2`,
    );
    expect(plan.Plans?.[0]['Actual Rows']).toBe(3);
    expect(rowsRead(plan)).toBeLessThan(10);
  });

  it('reads the tenant’s own pending requests alone (insert_presentation_request_within_cap)', async () => {
    const plan = await planOf(
      `SELECT count(*) FROM oid4vp_request c
        WHERE c.tenant_id = $1 AND c.status = 'pending' AND c.expires_at > $2`,
    );
    expect(plan.Plans?.[0]['Actual Rows']).toBe(3);
    expect(rowsRead(plan)).toBeLessThan(10);
  });
});
