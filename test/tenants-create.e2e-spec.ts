import { expectProblem, expectFieldErrors } from './support/problems.js';
import { type TestService } from './support/test-service.js';
import { createPath, type Tenant } from './support/api-shapes.js';
import { expectTenantShape, useTenantsService } from './support/tenants-harness.js';

/** Creating tenants (api.md, Routes, Tenant, Errors): real HTTP, real PostgreSQL. */
describe('Tenant endpoints: POST /tenants/create', () => {
  const harness = useTenantsService();
  const { createTenant, tenantRows, didRows, expectCreateRefused } = harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

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
});
