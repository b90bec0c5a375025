import fc from 'fast-check';
import { type TestService } from './support/test-service.js';
import { createPath, updatePath, deletePath, type Tenant } from './support/api-shapes.js';
import {
  tenantIdPattern,
  runs,
  isValidLabel,
  looksLikeAcceptableImageUrl,
  leavesItsSegment,
  isPlainObject,
  useRobustnessService,
} from './support/robustness-harness.js';
import {
  validTenantId,
  anyTenantId,
  validLabel,
  anyLabel,
  anyImageUrl,
  tenantFieldsArbitrary,
  anyJsonBody,
  labelWithLoneSurrogate,
} from './support/hostile-input.js';

/** Creates, updates and deletes under arbitrary input (fast-check): never a 5xx, always a problem body, nothing stored on a refusal. */
describe('robustness of the tenant writes under arbitrary input', () => {
  const harness = useRobustnessService();
  const { snapshot, withoutTenant, exists, expectWellFormed, problemCode, expectCreated, seedIds } =
    harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

  describe('POST /tenants/create', () => {
    it('answers any query-parameter create without a server error and stores a tenant with a DID only when it says 201', async () => {
      await fc.assert(
        fc.asyncProperty(tenantFieldsArbitrary, async (fields) => {
          const before = await snapshot();
          const response = await service.request(createPath, {
            method: 'POST',
            query: fields as Record<string, string>,
          });
          const after = await snapshot();

          expectWellFormed(response, createPath);
          if (response.status === 201) {
            expectCreated(response, fields.id, fields.label, fields.imageUrl, before, after);
            return;
          }
          expect(after).toEqual(before);
          const idValid = fields.id !== undefined && tenantIdPattern.test(fields.id);
          if (idValid && isValidLabel(fields.label) && fields.imageUrl === undefined) {
            // A valid id and label can only be refused because the id is taken.
            expect(exists(before, fields.id!)).toBe(true);
            expect(response.status).toBe(409);
            expect(problemCode(response)).toBe('TENANT_ALREADY_EXISTS');
          }
        }),
        runs,
      );
    });

    it('answers any JSON body without a server error and stores a tenant with a DID only when it says 201', async () => {
      await fc.assert(
        fc.asyncProperty(anyJsonBody, async (body) => {
          const before = await snapshot();
          const response = await service.request(createPath, {
            method: 'POST',
            body: JSON.stringify(body),
          });
          const after = await snapshot();

          expectWellFormed(response, createPath);
          if (response.status === 201) {
            expect(isPlainObject(body)).toBe(true);
            const fields = body as Record<string, unknown>;
            expect(
              Object.keys(fields).every((key) => ['id', 'label', 'imageUrl'].includes(key)),
            ).toBe(true);
            expectCreated(response, fields.id, fields.label, fields.imageUrl, before, after);
            return;
          }
          expect(after).toEqual(before);
          expect(response.status).toBeGreaterThanOrEqual(400);
          if (!isPlainObject(body)) expect(response.status).toBe(400);
        }),
        runs,
      );
    });

    it('answers the same fields in the query and a JSON body without a server error, refusing them when they disagree', async () => {
      await fc.assert(
        fc.asyncProperty(tenantFieldsArbitrary, tenantFieldsArbitrary, async (query, body) => {
          const before = await snapshot();
          const response = await service.request(createPath, {
            method: 'POST',
            query: query as Record<string, string>,
            body,
          });
          const after = await snapshot();

          expectWellFormed(response, createPath);
          if (response.status === 201) {
            expectCreated(
              response,
              query.id ?? body.id,
              query.label ?? body.label,
              query.imageUrl ?? body.imageUrl,
              before,
              after,
            );
            return;
          }
          expect(after).toEqual(before);
        }),
        runs,
      );
    });

    it('creates a tenant with a DID for every valid new id and label', async () => {
      await fc.assert(
        fc.asyncProperty(validTenantId, validLabel, fc.boolean(), async (id, label, asBody) => {
          const before = await snapshot();
          fc.pre(!exists(before, id));
          const response = await service.request(createPath, {
            method: 'POST',
            ...(asBody ? { body: { id, label } } : { query: { id, label } }),
          });
          const after = await snapshot();

          expect(response.status).toBe(201);
          expectCreated(response, id, label, undefined, before, after);
        }),
        { numRuns: 50 },
      );
    });

    it('refuses a label that is not well-formed Unicode rather than storing something else', async () => {
      await fc.assert(
        fc.asyncProperty(validTenantId, labelWithLoneSurrogate, async (id, label) => {
          const before = await snapshot();
          fc.pre(!exists(before, id));
          // JSON.stringify escapes the lone surrogate as \udxxx: the body is valid JSON.
          const response = await service.request(createPath, {
            method: 'POST',
            body: JSON.stringify({ id, label }),
          });
          const after = await snapshot();

          expectWellFormed(response, createPath);
          expect(response.status).toBe(400);
          expect(after).toEqual(before);
        }),
        { numRuns: 10 },
      );
    });
  });

  describe('POST /tenants/{id}/update', () => {
    const targetId = fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('seed-alpha', 'Seed.Beta', 'seed_gamma') },
      { weight: 3, arbitrary: anyTenantId },
    );

    it('answers any update without a server error and changes only the named tenant, only when it says 200', async () => {
      await fc.assert(
        fc.asyncProperty(
          targetId,
          fc.record({ label: anyLabel, imageUrl: anyImageUrl }, { requiredKeys: [] }),
          fc.constantFrom('query', 'body', 'json'),
          fc.option(anyJsonBody, { nil: undefined }),
          async (id, fields, where, rawBody) => {
            const path = updatePath(id);
            const before = await snapshot();
            const response = await service.request(path, {
              method: 'POST',
              ...(where === 'query' ? { query: fields } : {}),
              ...(where === 'body' ? { body: fields } : {}),
              ...(where === 'json' && rawBody !== undefined
                ? { body: JSON.stringify(rawBody) }
                : {}),
            });
            const after = await snapshot();

            expectWellFormed(response, path);
            if (leavesItsSegment(id)) {
              expect(response.status).toBeGreaterThanOrEqual(400);
              expect(after).toEqual(before);
              return;
            }
            if (response.status === 200) {
              const tenant = response.body as Tenant;
              expect(tenantIdPattern.test(id)).toBe(true);
              expect(tenant.id).toBe(id);
              expect(exists(before, id)).toBe(true);
              if (where !== 'json' && fields.label !== undefined) {
                expect(tenant.label).toBe(fields.label.trim());
              }
              expect(isValidLabel(tenant.label)).toBe(true);
              if (tenant.imageUrl !== null) {
                expect(looksLikeAcceptableImageUrl(tenant.imageUrl)).toBe(true);
              }
              expect(after.tenants.find((row) => row.id === id)).toMatchObject({
                label: tenant.label,
                image_url: tenant.imageUrl,
              });
              // The DID stays with the tenant, and every other tenant is untouched.
              expect(after.dids).toEqual(before.dids);
              expect(withoutTenant(after, id)).toEqual(withoutTenant(before, id));
              return;
            }
            expect(after).toEqual(before);
            if (!tenantIdPattern.test(id)) expect([400, 404]).toContain(response.status);
            const validChange =
              where !== 'json' &&
              fields.imageUrl === undefined &&
              fields.label !== undefined &&
              isValidLabel(fields.label);
            if (validChange && tenantIdPattern.test(id)) {
              // A valid label for a well-formed id is refused only when there is no such tenant.
              expect(exists(before, id)).toBe(false);
              expect(response.status).toBe(404);
              expect(problemCode(response)).toBe('TENANT_NOT_FOUND');
            }
          },
        ),
        runs,
      );
    });
  });

  describe('POST /tenants/{id}/delete', () => {
    it('answers any delete without a server error and removes exactly that tenant and its DID, only when it says 204', async () => {
      await fc.assert(
        fc.asyncProperty(
          anyTenantId.filter((id) => !seedIds.includes(id)),
          fc.boolean(),
          async (id, createFirst) => {
            if (createFirst && tenantIdPattern.test(id)) {
              const created = await service.request(createPath, {
                method: 'POST',
                query: { id, label: 'Doomed' },
              });
              expect([201, 409]).toContain(created.status);
            }
            const path = deletePath(id);
            const before = await snapshot();
            const response = await service.request(path, { method: 'POST' });
            const after = await snapshot();

            expectWellFormed(response, path);
            if (leavesItsSegment(id)) {
              expect(response.status).toBeGreaterThanOrEqual(400);
              expect(after).toEqual(before);
              return;
            }
            if (response.status === 204) {
              expect(response.text).toBe('');
              expect(exists(before, id)).toBe(true);
              expect(after).toEqual(withoutTenant(before, id));
              return;
            }
            expect(after).toEqual(before);
            if (tenantIdPattern.test(id)) {
              expect(exists(before, id)).toBe(false);
              expect(response.status).toBe(404);
              expect(problemCode(response)).toBe('TENANT_NOT_FOUND');
            } else {
              expect([400, 404]).toContain(response.status);
            }
          },
        ),
        runs,
      );
    });
  });
});
