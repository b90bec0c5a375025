import { expectProblem, expectFieldErrors } from './support/problems.js';
import { type TestService } from './support/test-service.js';
import {
  tenantPath,
  type Tenant,
  updatePath,
  deletePath,
  ed25519DidKey,
} from './support/api-shapes.js';
import {
  expectTenantShape,
  nextMillisecond,
  useTenantsService,
} from './support/tenants-harness.js';

/** Changing and deleting tenants (api.md, Routes, Tenant, Errors): real HTTP, real PostgreSQL. */
describe('Tenant endpoints: update and delete', () => {
  const harness = useTenantsService();
  const { createTenant, tenantRows, didRows } = harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
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
});
