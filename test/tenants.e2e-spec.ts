import { queryDatabase } from './support/database.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  type Tenant,
  type TenantPage,
  type Problem,
} from './support/api-shapes.js';

/** End-to-end tests of the tenant endpoints (api.md, Routes, Tenant, Pages, Errors): real HTTP, real PostgreSQL. */

const updatePath = (id: string) => `${tenantsPath}/${encodeURIComponent(id)}/update`;
const deletePath = (id: string) => `${tenantsPath}/${encodeURIComponent(id)}/delete`;

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ed25519DidKey = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/;

interface TenantRow {
  id: string;
  label: string;
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
}

interface DidRow {
  did: string;
  tenant_id: string;
  method: string;
  key_type: string;
  public_key: Buffer;
  private_key_sealed: Buffer;
  master_key_id: string;
}

/** The response is a problem document (RFC 9457) with this status and code. */
function expectProblem(response: ApiResponse, status: number, code: string, path: string): Problem {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = response.body as Problem;
  expect(problem).toMatchObject({ status, code, instance: path });
  expect(typeof problem.type).toBe('string');
  expect(typeof problem.title).toBe('string');
  expect(typeof problem.detail).toBe('string');
  return problem;
}

/** The problem names these fields among its invalid inputs. */
function expectFieldErrors(problem: Problem, fields: string[]): void {
  const named = (problem.errors ?? []).map((error) => error.field);
  for (const field of fields) expect(named).toContain(field);
}

function expectTenantShape(tenant: Tenant): void {
  expect(Object.keys(tenant).sort()).toEqual(
    ['createdAt', 'did', 'id', 'imageUrl', 'label', 'updatedAt'].sort(),
  );
  expect(tenant.did).toMatch(ed25519DidKey);
  expect(tenant.createdAt).toMatch(isoTimestamp);
  expect(tenant.updatedAt).toMatch(isoTimestamp);
}

/** Lets the clock move on, so that a later write gets a later millisecond timestamp. */
function nextMillisecond(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5));
}

describe('Tenant endpoints', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });

  afterAll(async () => {
    await service.close();
  });

  /** Setup through the typed client; the tests below send raw HTTP where the request is the point. */
  function createTenant(id: string, label: string, imageUrl?: string): Promise<Tenant> {
    return service.client().createTenant({ id, label, imageUrl });
  }

  async function tenantRows(id: string): Promise<TenantRow[]> {
    return queryDatabase<TenantRow>(service.databaseUrl, 'SELECT * FROM tenant WHERE id = $1', [
      id,
    ]);
  }

  async function didRows(tenantId: string): Promise<DidRow[]> {
    return queryDatabase<DidRow>(
      service.databaseUrl,
      'SELECT * FROM tenant_did WHERE tenant_id = $1',
      [tenantId],
    );
  }

  /** How many tenants and DIDs the database holds, to show that a refused request stored nothing. */
  async function storedCounts(): Promise<{ tenants: number; dids: number }> {
    const [row] = await queryDatabase<{ tenants: string; dids: string }>(
      service.databaseUrl,
      'SELECT (SELECT count(*) FROM tenant) AS tenants, (SELECT count(*) FROM tenant_did) AS dids',
    );
    return { tenants: Number(row.tenants), dids: Number(row.dids) };
  }

  /** Sends a create request that must be refused with 400 and must leave the database as it was. */
  async function expectCreateRefused(
    request: { query?: Record<string, string>; body?: unknown; path?: string },
    code: string,
    fields: string[] = [],
  ): Promise<Problem> {
    const before = await storedCounts();
    const response = await service.request(request.path ?? createPath, {
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
    return service.request<TenantPage>(tenantsPath, { query });
  }

  describe('POST /tenants/create', () => {
    it('creates a tenant from query parameters with a JSON content type and no body, as the original clients do', async () => {
      const response = await service.request<Tenant>(createPath, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        query: { id: 'new-seed', label: 'Seed Style Corp' },
      });

      expect(response.status).toBe(201);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expectTenantShape(response.body);
      expect(response.body).toMatchObject({
        id: 'new-seed',
        label: 'Seed Style Corp',
        imageUrl: null,
      });
      const [row] = await tenantRows('new-seed');
      expect(row).toMatchObject({ id: 'new-seed', label: 'Seed Style Corp', image_url: null });
      expect(row.created_at.toISOString()).toBe(response.body.createdAt);
      expect(row.updated_at.toISOString()).toBe(response.body.updatedAt);
      const dids = await didRows('new-seed');
      expect(dids).toHaveLength(1);
      expect(dids[0]).toMatchObject({
        did: response.body.did,
        method: 'key',
        key_type: 'ed25519',
      });
      expect(dids[0].public_key).toHaveLength(32);
      expect(dids[0].private_key_sealed.length).toBeGreaterThan(32);
    });

    it('creates a tenant from a JSON body', async () => {
      const response = await service.request<Tenant>(createPath, {
        method: 'POST',
        body: { id: 'new-body', label: 'Body Corp', imageUrl: 'https://body.example/logo.png' },
      });

      expect(response.status).toBe(201);
      expectTenantShape(response.body);
      expect(response.body).toMatchObject({
        id: 'new-body',
        label: 'Body Corp',
        imageUrl: 'https://body.example/logo.png',
      });
      expect(await tenantRows('new-body')).toEqual([
        expect.objectContaining({
          label: 'Body Corp',
          image_url: 'https://body.example/logo.png',
        }),
      ]);
      expect(await didRows('new-body')).toHaveLength(1);
    });

    it('creates a tenant when the query and the body give the same values', async () => {
      const response = await service.request<Tenant>(createPath, {
        method: 'POST',
        query: { id: 'new-both', label: 'Both Corp' },
        body: { id: 'new-both', label: 'Both Corp' },
      });

      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ id: 'new-both', label: 'Both Corp' });
      expect(await tenantRows('new-both')).toHaveLength(1);
    });

    it('creates a tenant from fields split between the query and the body', async () => {
      const response = await service.request<Tenant>(createPath, {
        method: 'POST',
        query: { id: 'new-split' },
        body: { label: 'Split Corp' },
      });

      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ id: 'new-split', label: 'Split Corp' });
    });

    it('refuses with 400 QUERY_BODY_MISMATCH when the query and the body disagree, storing nothing', async () => {
      const problem = await expectCreateRefused(
        {
          query: { id: 'new-mismatch', label: 'Query Corp' },
          body: { id: 'new-mismatch', label: 'Body Corp' },
        },
        'QUERY_BODY_MISMATCH',
        ['label'],
      );

      expect(problem.errors!.map((error) => error.field)).toEqual(['label']);
      expect(await tenantRows('new-mismatch')).toEqual([]);
    });

    it('refuses with 400 QUERY_BODY_MISMATCH when the query and the body name different ids', async () => {
      await expectCreateRefused(
        { query: { id: 'new-first', label: 'Corp' }, body: { id: 'new-second', label: 'Corp' } },
        'QUERY_BODY_MISMATCH',
        ['id'],
      );

      expect(await tenantRows('new-first')).toEqual([]);
      expect(await tenantRows('new-second')).toEqual([]);
    });

    it('stores the label trimmed', async () => {
      const tenant = await createTenant('new-trim', '   Trimmed Corp \t ');

      expect(tenant.label).toBe('Trimmed Corp');
      expect((await tenantRows('new-trim'))[0].label).toBe('Trimmed Corp');
    });

    it('accepts an id of 64 characters, a label of 200 characters and an image URL of 2048 characters', async () => {
      const id = `new-${'x'.repeat(60)}`;
      const label = 'L'.repeat(200);
      const imageUrl = `https://longest.example/${'p'.repeat(2048 - 'https://longest.example/'.length)}`;
      expect(imageUrl).toHaveLength(2048);

      const tenant = await createTenant(id, label, imageUrl);

      expect(tenant).toMatchObject({ id, label, imageUrl });
      expect(await tenantRows(id)).toHaveLength(1);
    });

    it('accepts ids made of letters, digits, dots, dashes and underscores', async () => {
      const tenant = await createTenant('New_1.a-b', 'Punctuated Corp');

      expect(tenant.id).toBe('New_1.a-b');
    });

    it('refuses with 400 VALIDATION_FAILED naming the id when the id is missing', async () => {
      await expectCreateRefused({ query: { label: 'No Id Corp' } }, 'VALIDATION_FAILED', ['id']);
    });

    it('refuses with 400 VALIDATION_FAILED naming the label when the label is missing', async () => {
      await expectCreateRefused({ query: { id: 'new-nolabel' } }, 'VALIDATION_FAILED', ['label']);

      expect(await tenantRows('new-nolabel')).toEqual([]);
    });

    it('names both fields when neither id nor label is given', async () => {
      await expectCreateRefused({}, 'VALIDATION_FAILED', ['id', 'label']);
    });

    it.each([
      ['empty', ''],
      ['65 characters long', `a${'b'.repeat(64)}`],
      ['starting with a dash', '-lead'],
      ['starting with a dot', '.lead'],
      ['starting with an underscore', '_lead'],
      ['containing a space', 'has space'],
      ['containing a slash', 'has/slash'],
      ['containing a non-ASCII letter', 'café'],
      ['containing an emoji', 'rocket🚀'],
    ])('refuses an id %s with 400 and stores nothing', async (_case, id) => {
      await expectCreateRefused({ query: { id, label: 'Bad Id Corp' } }, 'VALIDATION_FAILED', [
        'id',
      ]);
    });

    it.each([
      ['empty', ''],
      ['only spaces', '     '],
      ['201 characters long', 'L'.repeat(201)],
      ['containing a bell character', 'AC\u0007ME'],
      ['containing a line break', 'two\nlines'],
      ['containing a NUL character', 'nul\u0000byte'],
    ])('refuses a label %s with 400 and stores nothing', async (_case, label) => {
      await expectCreateRefused({ query: { id: 'new-badlabel', label } }, 'VALIDATION_FAILED', [
        'label',
      ]);
    });

    it.each([
      ['a javascript: URL', 'javascript:alert(1)'],
      ['an ftp: URL', 'ftp://files.example/logo.png'],
      ['a relative path', '/logo.png'],
      ['not a URL at all', 'a logo'],
      [
        'a URL of 2049 characters',
        `https://longest.example/${'p'.repeat(2049 - 'https://longest.example/'.length)}`,
      ],
    ])('refuses an image URL that is %s with 400 and stores nothing', async (_case, imageUrl) => {
      await expectCreateRefused(
        { body: { id: 'new-badimage', label: 'Bad Image Corp', imageUrl } },
        'VALIDATION_FAILED',
        ['imageUrl'],
      );
    });

    it('refuses an image URL containing a NUL character with 400 rather than failing', async () => {
      await expectCreateRefused(
        {
          body: {
            id: 'new-nulimage',
            label: 'Nul Image Corp',
            imageUrl: 'https://nul.example/a\u0000b.png',
          },
        },
        'VALIDATION_FAILED',
        ['imageUrl'],
      );
    });

    it('refuses a null id in the body with 400 rather than failing', async () => {
      await expectCreateRefused(
        { body: { id: null, label: 'Null Id Corp' } },
        'VALIDATION_FAILED',
        ['id'],
      );
    });

    it('refuses a null label in the body with 400 rather than failing', async () => {
      await expectCreateRefused(
        { body: { id: 'new-nulllabel', label: null } },
        'VALIDATION_FAILED',
        ['label'],
      );
    });

    it('refuses a label of 202 code points that the validator counts as 101 characters with 400 rather than failing', async () => {
      // U+FE0F (emoji presentation) after each heart: 2 code points each, which PostgreSQL counts.
      await expectCreateRefused(
        { body: { id: 'new-emoji', label: '\u2764\uFE0F'.repeat(101) } },
        'VALIDATION_FAILED',
        ['label'],
      );
    });

    it('refuses an image URL of 2062 code points that the validator counts as 1042 characters with 400 rather than failing', async () => {
      // Each 'a' carries a U+FE0F variation selector, which the validator does not count but PostgreSQL does.
      const imageUrl = `https://emoji.example/${'a\uFE0F'.repeat(1020)}`;
      expect([...imageUrl]).toHaveLength(2062);

      await expectCreateRefused(
        { body: { id: 'new-emojiurl', label: 'Emoji Url Corp', imageUrl } },
        'VALIDATION_FAILED',
        ['imageUrl'],
      );
    });

    it('refuses an unknown body field with 400 naming it', async () => {
      const problem = await expectCreateRefused(
        { body: { id: 'new-unknown', label: 'Unknown Corp', colour: 'red' } },
        'VALIDATION_FAILED',
        ['colour'],
      );

      expect(problem.errors).toContainEqual({ field: 'colour', message: 'is not a known field' });
    });

    it('refuses an unknown query parameter with 400 naming it', async () => {
      await expectCreateRefused(
        { query: { id: 'new-unknownq', label: 'Unknown Corp', colour: 'red' } },
        'VALIDATION_FAILED',
        ['colour'],
      );
    });

    it('refuses a body that is a JSON array with 400', async () => {
      await expectCreateRefused(
        { body: [{ id: 'new-array', label: 'Array Corp' }] },
        'VALIDATION_FAILED',
        ['body'],
      );
    });

    it('refuses a body that is not valid JSON with 400 MALFORMED_JSON', async () => {
      await expectCreateRefused({ body: '{"id": "new-broken", "label": ' }, 'MALFORMED_JSON');
    });

    it('refuses an id given twice in the query with 400', async () => {
      await expectCreateRefused(
        { path: `${createPath}?id=new-twice-a&id=new-twice-b`, query: { label: 'Twice Corp' } },
        'VALIDATION_FAILED',
        ['id'],
      );

      expect(await tenantRows('new-twice-a')).toEqual([]);
      expect(await tenantRows('new-twice-b')).toEqual([]);
    });

    it('refuses a taken id with 409 TENANT_ALREADY_EXISTS and keeps the first tenant as it was', async () => {
      const first = await createTenant('new-taken', 'First Corp');

      const response = await service.request(createPath, {
        method: 'POST',
        query: { id: 'new-taken', label: 'Second Corp' },
      });

      const problem = expectProblem(response, 409, 'TENANT_ALREADY_EXISTS', createPath);
      expectFieldErrors(problem, ['id']);
      const rows = await tenantRows('new-taken');
      expect(rows).toHaveLength(1);
      expect(rows[0].label).toBe('First Corp');
      expect((await didRows('new-taken')).map((row) => row.did)).toEqual([first.did]);
    });

    it('treats ids as case-sensitive: Acme and acme are two tenants with two DIDs', async () => {
      const upper = await createTenant('new-Acme', 'Upper Acme');
      const lower = await createTenant('new-acme', 'Lower Acme');

      expect(upper.id).toBe('new-Acme');
      expect(lower.id).toBe('new-acme');
      expect(upper.did).not.toBe(lower.did);
      expect(await tenantRows('new-Acme')).toHaveLength(1);
      expect(await tenantRows('new-acme')).toHaveLength(1);
    });

    it('creates exactly one tenant and one DID when 20 requests race for the same id', async () => {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          service.request<Tenant>(createPath, {
            method: 'POST',
            query: { id: 'new-race', label: `Racer ${index}` },
          }),
        ),
      );

      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([201, ...Array.from({ length: 19 }, () => 409)]);
      for (const response of responses.filter((each) => each.status === 409)) {
        expectProblem(response, 409, 'TENANT_ALREADY_EXISTS', createPath);
      }
      const winner = responses.find((response) => response.status === 201)!.body;
      const rows = await tenantRows('new-race');
      expect(rows).toHaveLength(1);
      expect(rows[0].label).toBe(winner.label);
      expect((await didRows('new-race')).map((row) => row.did)).toEqual([winner.did]);
    });
  });

  describe('POST /tenants/{id}/update', () => {
    it('changes the label given as a query parameter, advancing updatedAt and keeping createdAt and the DID', async () => {
      const created = await createTenant('upd-query', 'Old Label');
      await nextMillisecond();

      const response = await service.request<Tenant>(updatePath('upd-query'), {
        method: 'POST',
        query: { label: 'New Label' },
      });

      expect(response.status).toBe(200);
      expectTenantShape(response.body);
      expect(response.body).toMatchObject({
        id: 'upd-query',
        label: 'New Label',
        imageUrl: null,
        did: created.did,
        createdAt: created.createdAt,
      });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
      const [row] = await tenantRows('upd-query');
      expect(row.label).toBe('New Label');
      expect(row.updated_at.toISOString()).toBe(response.body.updatedAt);
      expect((await didRows('upd-query')).map((did) => did.did)).toEqual([created.did]);
    });

    it('changes the label given in a JSON body, trimmed', async () => {
      const created = await createTenant('upd-body', 'Old Label');
      await nextMillisecond();

      const response = await service.request<Tenant>(updatePath('upd-body'), {
        method: 'POST',
        body: { label: '  Body Label  ' },
      });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        label: 'Body Label',
        did: created.did,
        createdAt: created.createdAt,
      });
      expect(Date.parse(response.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
      expect((await tenantRows('upd-body'))[0].label).toBe('Body Label');
    });

    it('sets the image and then clears it with a JSON null, keeping the label', async () => {
      await createTenant('upd-image', 'Image Corp');

      const set = await service.request<Tenant>(updatePath('upd-image'), {
        method: 'POST',
        body: { imageUrl: 'https://image.example/logo.png' },
      });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        label: 'Image Corp',
        imageUrl: 'https://image.example/logo.png',
      });
      expect((await tenantRows('upd-image'))[0].image_url).toBe('https://image.example/logo.png');

      const cleared = await service.request<Tenant>(updatePath('upd-image'), {
        method: 'POST',
        body: { imageUrl: null },
      });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ label: 'Image Corp', imageUrl: null });
      expect((await tenantRows('upd-image'))[0].image_url).toBeNull();
    });

    it('clears the image when the imageUrl query parameter is empty', async () => {
      await createTenant('upd-imagequery', 'Image Corp', 'https://image.example/logo.png');

      const response = await service.request<Tenant>(updatePath('upd-imagequery'), {
        method: 'POST',
        query: { imageUrl: '' },
      });

      expect(response.status).toBe(200);
      expect(response.body.imageUrl).toBeNull();
      expect((await tenantRows('upd-imagequery'))[0].image_url).toBeNull();
    });

    it('changes label and image together when the query and the body agree', async () => {
      await createTenant('upd-agree', 'Old Label');

      const response = await service.request<Tenant>(updatePath('upd-agree'), {
        method: 'POST',
        query: { label: 'Agreed' },
        body: { label: 'Agreed', imageUrl: 'http://agreed.example/a.png' },
      });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        label: 'Agreed',
        imageUrl: 'http://agreed.example/a.png',
      });
    });

    it('refuses with 400 QUERY_BODY_MISMATCH when the query and the body disagree, changing nothing', async () => {
      await createTenant('upd-mismatch', 'Kept Label');

      const response = await service.request(updatePath('upd-mismatch'), {
        method: 'POST',
        query: { label: 'Query Label' },
        body: { label: 'Body Label' },
      });

      const problem = expectProblem(
        response,
        400,
        'QUERY_BODY_MISMATCH',
        updatePath('upd-mismatch'),
      );
      expectFieldErrors(problem, ['label']);
      expect((await tenantRows('upd-mismatch'))[0].label).toBe('Kept Label');
    });

    it('refuses with 400 NOTHING_TO_UPDATE when neither label nor imageUrl is given', async () => {
      const created = await createTenant('upd-nothing', 'Unchanged');

      const response = await service.request(updatePath('upd-nothing'), { method: 'POST' });

      expectProblem(response, 400, 'NOTHING_TO_UPDATE', updatePath('upd-nothing'));
      const [row] = await tenantRows('upd-nothing');
      expect(row.label).toBe('Unchanged');
      expect(row.updated_at.toISOString()).toBe(created.updatedAt);
    });

    it('refuses with 400 NOTHING_TO_UPDATE when the body is an empty object', async () => {
      await createTenant('upd-empty', 'Unchanged');

      const response = await service.request(updatePath('upd-empty'), {
        method: 'POST',
        body: {},
      });

      expectProblem(response, 400, 'NOTHING_TO_UPDATE', updatePath('upd-empty'));
    });

    it('answers 404 TENANT_NOT_FOUND for a tenant that does not exist', async () => {
      const response = await service.request(updatePath('upd-ghost'), {
        method: 'POST',
        query: { label: 'Ghost' },
      });

      expectProblem(response, 404, 'TENANT_NOT_FOUND', updatePath('upd-ghost'));
      expect(await tenantRows('upd-ghost')).toEqual([]);
    });

    it.each([
      ['starting with a dash', '-bad'],
      ['65 characters long', `a${'b'.repeat(64)}`],
      ['containing a non-ASCII letter', 'café'],
    ])('refuses a path id %s with 400', async (_case, id) => {
      const response = await service.request(updatePath(id), {
        method: 'POST',
        query: { label: 'Whatever' },
      });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', updatePath(id));
      expectFieldErrors(problem, ['id']);
    });

    it('refuses to change the id through the body with 400, keeping the tenant under its id', async () => {
      await createTenant('upd-rename', 'Rename Corp');

      const response = await service.request(updatePath('upd-rename'), {
        method: 'POST',
        body: { id: 'upd-renamed', label: 'Renamed Corp' },
      });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', updatePath('upd-rename'));
      expect(problem.errors).toContainEqual({ field: 'id', message: 'is not a known field' });
      expect((await tenantRows('upd-rename'))[0].label).toBe('Rename Corp');
      expect(await tenantRows('upd-renamed')).toEqual([]);
    });

    it('refuses to change the id through the query with 400', async () => {
      await createTenant('upd-renameq', 'Rename Corp');

      const response = await service.request(updatePath('upd-renameq'), {
        method: 'POST',
        query: { id: 'upd-renamedq', label: 'Renamed Corp' },
      });

      expectProblem(response, 400, 'VALIDATION_FAILED', updatePath('upd-renameq'));
      expect((await tenantRows('upd-renameq'))[0].label).toBe('Rename Corp');
      expect(await tenantRows('upd-renamedq')).toEqual([]);
    });

    it.each([
      ['only spaces', 'upd-spaces', { label: '   ' }, 'label'],
      ['201 characters long', 'upd-long', { label: 'L'.repeat(201) }, 'label'],
      ['a javascript: image URL', 'upd-script', { imageUrl: 'javascript:alert(1)' }, 'imageUrl'],
    ])(
      'refuses a new value that is %s with 400, changing nothing',
      async (_case, id, body, field) => {
        await createTenant(id, 'Kept Label', 'https://kept.example/logo.png');

        const response = await service.request(updatePath(id), { method: 'POST', body });

        const problem = expectProblem(response, 400, 'VALIDATION_FAILED', updatePath(id));
        expectFieldErrors(problem, [field]);
        expect(await tenantRows(id)).toEqual([
          expect.objectContaining({
            label: 'Kept Label',
            image_url: 'https://kept.example/logo.png',
          }),
        ]);
      },
    );

    it('refuses a null label with 400 rather than failing, keeping the label', async () => {
      await createTenant('upd-nulllabel', 'Kept Label');

      const response = await service.request(updatePath('upd-nulllabel'), {
        method: 'POST',
        body: { label: null },
      });

      const problem = expectProblem(
        response,
        400,
        'VALIDATION_FAILED',
        updatePath('upd-nulllabel'),
      );
      expectFieldErrors(problem, ['label']);
      expect((await tenantRows('upd-nulllabel'))[0].label).toBe('Kept Label');
    });
  });

  describe('POST /tenants/{id}/delete', () => {
    it('answers 204 with an empty body and destroys the tenant row and its DID row with the sealed key', async () => {
      await createTenant('del-one', 'Doomed Corp');
      expect(await didRows('del-one')).toHaveLength(1);

      const response = await service.request(deletePath('del-one'), { method: 'POST' });

      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect(await tenantRows('del-one')).toEqual([]);
      expect(await didRows('del-one')).toEqual([]);
    });

    it('leaves other tenants and their DIDs in place', async () => {
      const kept = await createTenant('del-kept', 'Kept Corp');
      await createTenant('del-gone', 'Gone Corp');

      await service.client().deleteTenant('del-gone');

      expect(await tenantRows('del-kept')).toHaveLength(1);
      expect((await didRows('del-kept')).map((row) => row.did)).toEqual([kept.did]);
    });

    it('answers 404 TENANT_NOT_FOUND to a second delete of the same tenant', async () => {
      await createTenant('del-twice', 'Twice Corp');
      await service.client().deleteTenant('del-twice');

      const response = await service.request(deletePath('del-twice'), { method: 'POST' });

      expectProblem(response, 404, 'TENANT_NOT_FOUND', deletePath('del-twice'));
    });

    it('answers 404 TENANT_NOT_FOUND to a GET of a deleted tenant', async () => {
      await createTenant('del-get', 'Get Corp');
      await service.client().deleteTenant('del-get');

      const response = await service.request(tenantPath('del-get'));

      expectProblem(response, 404, 'TENANT_NOT_FOUND', tenantPath('del-get'));
    });

    it('lets a deleted id be used again, with a new DID', async () => {
      const first = await createTenant('del-reuse', 'First Life');
      await service.client().deleteTenant('del-reuse');

      const second = await createTenant('del-reuse', 'Second Life');

      expect(second.label).toBe('Second Life');
      expect(second.did).toMatch(ed25519DidKey);
      expect(second.did).not.toBe(first.did);
      expect((await didRows('del-reuse')).map((row) => row.did)).toEqual([second.did]);
    });

    it('answers 404 TENANT_NOT_FOUND for a tenant that never existed', async () => {
      const response = await service.request(deletePath('del-ghost'), { method: 'POST' });

      expectProblem(response, 404, 'TENANT_NOT_FOUND', deletePath('del-ghost'));
    });

    it('refuses a malformed path id with 400', async () => {
      const response = await service.request(deletePath('-bad'), { method: 'POST' });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', deletePath('-bad'));
      expectFieldErrors(problem, ['id']);
    });
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
