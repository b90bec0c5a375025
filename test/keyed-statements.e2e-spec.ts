import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { OfferGrantsService } from '../src/oid4vci/offers/offer-grants.service.js';
import { PresentationRequestRepository } from '../src/oid4vp/requests/presentation-request.repository.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

/**
 * The wallet paths' statements that change one offer or presentation request read it by its id alone
 * and test its state on the locked row (docs/performance.md, "Keyed statements"). Here the statistics
 * are the ones that lead PostgreSQL astray otherwise: taken when no row was open (a quiet night), then
 * hundreds opened. A plan through an open-row index reads every open row of every tenant.
 */
describe('Keyed statements', () => {
  let service: TestService;
  let database: pg.Client;
  const notices: string[] = [];

  /** `count` copies of the row `id` of `table` with fresh keys, in the given status. */
  const copies = async (table: string, id: string, count: number, status: string) => {
    await database.query(
      `INSERT INTO ${table}
       SELECT (jsonb_populate_record(NULL::${table}, to_jsonb(r) || jsonb_build_object(
                 'id', gen_random_uuid(), 'status', $2::text,
                 'reference_hash', sha256(gen_random_uuid()::text::bytea),
                 'pre_authorized_code_hash', sha256(gen_random_uuid()::text::bytea)))).*
         FROM ${table} r, generate_series(1, $3) WHERE r.id = $1`,
      [id, status, count],
    );
  };

  /** The index each scan of `table` uses in the plans PostgreSQL logged since `from`. */
  const indexesRead = (table: string, from: number): string[] =>
    notices.slice(from).flatMap((notice) => {
      const json = notice.slice(notice.indexOf('{'));
      const names: string[] = [];
      const walk = (node: Json) => {
        const scan = String(node['Node Type']).endsWith('Scan');
        if (scan && node['Relation Name'] === table)
          names.push((node['Index Name'] as string | undefined) ?? 'none');
        for (const child of (node.Plans as Json[] | undefined) ?? []) walk(child);
      };
      walk((JSON.parse(json) as { Plan: Json }).Plan);
      return names;
    });

  /**
   * Runs `sql` in a transaction that rolls back, with every plan (nested ones too) logged to us: the
   * indexes its scans of `table` used, and how many rows it answered.
   */
  const planned = async (table: string, sql: string, values: unknown[]) => {
    const from = notices.length;
    await database.query('BEGIN');
    try {
      const { rowCount } = await database.query(sql, values);
      return { read: indexesRead(table, from), rows: rowCount };
    } finally {
      await database.query('ROLLBACK');
    }
  };

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'demo' });
    await service.client().createCredentialConfiguration('demo', sdJwtBadge);
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    database.on('notice', (notice) => {
      if (notice.message?.includes('"Plan"')) notices.push(notice.message);
    });
    const offer = await service.request<{ id: string }>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } },
    });
    const request = await service.request<{ id: string }>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: {
        clientIdPrefix: 'decentralized_identifier',
        dcqlQuery: {
          credentials: [{ id: 'badge', format: 'dc+sd-jwt', meta: { vct_values: ['badge'] } }],
        },
      },
    });
    expect([offer.status, request.status]).toEqual([201, 201]);
    // Closed rows, then the statistics taken with none open, then many opened; no analyze after.
    await database.query(
      'ALTER TABLE oid4vci_offer SET (autovacuum_enabled = off); ' +
        'ALTER TABLE oid4vp_request SET (autovacuum_enabled = off)',
    );
    await copies('oid4vci_offer', offer.body.id, 2000, 'issued');
    await copies('oid4vp_request', request.body.id, 200, 'verified');
    await database.query('VACUUM ANALYZE oid4vci_offer, oid4vp_request');
    await copies('oid4vci_offer', offer.body.id, 500, 'offered');
    await copies('oid4vci_offer', offer.body.id, 100, 'accepted');
    await copies('oid4vp_request', request.body.id, 500, 'pending');
    await database.query(`LOAD 'auto_explain'`);
    await database.query(`SET auto_explain.log_min_duration = 0`);
    await database.query(`SET auto_explain.sample_rate = 1`);
    await database.query(`SET auto_explain.log_nested_statements = on`);
    await database.query(`SET auto_explain.log_format = json`);
    await database.query(`SET auto_explain.log_level = notice`);
  });
  afterAll(async () => {
    await database?.end();
    await service.close();
  });

  /** An offer in `status`, of `grantType`, with a token of its own. */
  const anOffer = async (
    status: string,
    grantType = 'pre-authorized_code',
  ): Promise<{ id: string; token: Buffer }> => {
    const token = randomBytes(32);
    const { rows } = await database.query<{ id: string }>(
      `UPDATE oid4vci_offer SET access_token_hash = $2, grant_type = $3
        WHERE id = (SELECT id FROM oid4vci_offer WHERE status = $1 AND access_token_hash IS NULL
                     LIMIT 1) RETURNING id`,
      [status, token, grantType],
    );
    return { id: rows[0].id, token };
  };
  const grant = () => ({
    accessTokenHash: randomBytes(32),
    expiresAt: new Date(Date.now() + 60_000),
    dpopJkt: null,
    refundedTries: 0 as const,
    now: new Date(),
  });

  it('the token grants read the offer by its id', async () => {
    const grants = service.app.get(OfferGrantsService);
    const preAuthorized = await anOffer('offered');
    const loggedIn = await anOffer('offered', 'authorization_code');
    const claims = { sealed: randomBytes(32), masterKeyId: 'k1' };
    for (const { sql, parameters } of [
      grants.acceptStatement(preAuthorized.id, grant()),
      grants.acceptWithClaimsStatement(loggedIn.id, grant(), claims),
    ]) {
      const { read, rows } = await planned('oid4vci_offer', sql, parameters);
      expect(rows).toBe(1);
      expect(new Set(read)).toEqual(new Set(['oid4vci_offer_pkey']));
    }
  });

  it("the credential request's take reads the offer by its id", async () => {
    const { id, token } = await anOffer('accepted');
    const { read, rows } = await planned(
      'oid4vci_offer',
      `SELECT * FROM take_offer_for_issue($1, $2, now(), ARRAY['urn:uuid:1'], 'n1')`,
      [id, token],
    );
    expect(rows).toBe(1);
    expect(new Set(read)).toEqual(new Set(['oid4vci_offer_pkey']));
  });

  it("the wallet's answer reads the presentation request by its id", async () => {
    const { rows } = await database.query<{ id: string }>(
      `SELECT id FROM oid4vp_request WHERE status = 'pending' LIMIT 1`,
    );
    const { sql, parameters } = service.app.get(PresentationRequestRepository).concludeStatement(
      'demo',
      rows[0].id,
      {
        status: 'failed',
        outcomeCode: 'invalid_presentation',
        outcomeReason: 'test',
        presented: null,
        claimsSealed: null,
        claimsMasterKeyId: null,
        responseCodeHash: null,
      },
      new Date(),
    );
    const { read, rows: changed } = await planned('oid4vp_request', sql, parameters);
    expect(changed).toBe(1);
    expect(new Set(read)).toEqual(new Set(['oid4vp_request_pkey']));
  });
});
