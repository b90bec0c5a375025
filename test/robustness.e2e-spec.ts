import fc from 'fast-check';
import { errorCatalog, problemSlug, type ErrorCode } from '../src/common/problem/error-codes.js';
import pg from 'pg';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  updatePath,
  deletePath,
  didPath,
  didDocumentPath,
  type Tenant,
  type TenantPage,
  type Problem,
} from './support/api-shapes.js';

/**
 * Property-based tests over the tenant and DID endpoints (api.md, Tenant, Pages, Errors): whatever a
 * caller sends, the service answers below 500, every refusal is a problem document, and a refused
 * request leaves the database exactly as it was. Real HTTP, real PostgreSQL.
 */

/** The same rule as api.md, Tenant; written out here so the tests do not trust the code under test. */
const tenantIdPattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const ed25519DidKey = /^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/;
const sortValues = ['id', 'label', 'createdAt', 'updatedAt'].flatMap((field) => [
  field,
  `${field},asc`,
  `${field},desc`,
]);

/** About 100 runs per property keeps the whole file well under a minute. */
const runs = { numRuns: 100 };

interface TenantRow {
  id: string;
  label: string;
  image_url: string | null;
  updated_at: string;
}

interface DidRow {
  did: string;
  tenant_id: string;
}

interface DatabaseSnapshot {
  tenants: TenantRow[];
  dids: DidRow[];
}

/** Fields as a caller may send them: in the query (strings) or in a JSON body (anything). */
interface TenantFields {
  id?: string;
  label?: string;
  imageUrl?: string;
}

function codePoints(text: string): number {
  return [...text].length;
}

/** api.md, Tenant: 1-200 characters after trimming, no control characters. */
function isValidLabel(label: unknown): label is string {
  if (typeof label !== 'string') return false;
  const trimmed = label.trim();
  return codePoints(trimmed) >= 1 && codePoints(trimmed) <= 200 && !/\p{Cc}/u.test(trimmed);
}

/** What any accepted image URL must at least be (api.md, Tenant): http(s), at most 2048 characters. */
function looksLikeAcceptableImageUrl(imageUrl: string): boolean {
  const trimmed = imageUrl.trim();
  return /^https?:\/\//i.test(trimmed) && codePoints(trimmed) <= 2048 && !/\p{Cc}/u.test(trimmed);
}

/** '' and dot segments do not stay one path segment: such a path names another route (or none). */
function leavesItsSegment(id: string): boolean {
  return id === '' || id === '.' || id === '..';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// Arbitraries. Query-string values stay well below Node's 16 kB header limit, which has its own test
// in errors.e2e-spec.ts.

const controlCharacter = fc
  .integer({ min: 0, max: 0x9f })
  .filter((code) => code < 0x20 || code >= 0x7f)
  .map((code) => String.fromCharCode(code));

const idCharacter = fc.constantFrom(...'abcXYZ019_.-');

const validTenantId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

const awkwardTenantIds = fc.constantFrom(
  '',
  ' ',
  '.',
  '..',
  '-leading-dash',
  '_leading-underscore',
  '.leading-dot',
  'with space',
  'a/b',
  'a\\b',
  '%',
  '%2F',
  '%00',
  '?',
  '#',
  '__proto__',
  'constructor',
  'a'.repeat(64),
  'a'.repeat(65),
  'Ａcme',
  'ıd',
  'café',
  '😀',
  "x' OR '1'='1",
);

const anyTenantId = fc.oneof(
  { weight: 4, arbitrary: validTenantId },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.oneof(idCharacter, controlCharacter), maxLength: 40 }),
  },
  { weight: 1, arbitrary: fc.string({ unit: idCharacter, minLength: 65, maxLength: 600 }) },
  { weight: 2, arbitrary: awkwardTenantIds },
);

const validLabel = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 190, maxLength: 200 }),
  )
  .filter(isValidLabel);

const anyLabel = fc.oneof(
  { weight: 4, arbitrary: validLabel },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.string({
      unit: fc.oneof(fc.constantFrom('a', ' ', 'é'), controlCharacter),
      maxLength: 30,
    }),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 201, maxLength: 1200 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\t\n',
      '\u00a0',
      '\ufeff',
      ' padded ',
      'a'.repeat(200),
      'a'.repeat(201),
      '😀'.repeat(200),
      '😀'.repeat(201),
      'e\u0301'.repeat(100),
      'e\u0301'.repeat(101),
      'tab\there',
      'line\u2028separator',
      'nel\u0085',
      "Robert'); DROP TABLE tenant;--",
    ),
  },
);

const anyImageUrl = fc.oneof(
  { weight: 3, arbitrary: fc.webUrl() },
  { weight: 1, arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.webUrl(), fc.integer({ min: 2000, max: 2100 }))
      .map(([url, length]) => `${url}/${'a'.repeat(Math.max(0, length - url.length - 1))}`),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'https://example.com/logo.png',
      ' https://example.com/padded.png ',
      'HTTPS://EXAMPLE.COM/LOGO.PNG',
      'http://localhost:8080/a.png',
      'http://[::1]/a.png',
      'javascript:alert(1)',
      'ftp://example.com/logo.png',
      'data:image/png;base64,AAAA',
      'file:///etc/passwd',
      '//example.com/logo.png',
      'http://',
      'https://exa mple.com/a.png',
      'https://example.com/\u0000',
      'https://example.com/\u0007',
      `https://example.com/${'a'.repeat(2028)}`,
      `https://example.com/${'a'.repeat(2029)}`,
    ),
  },
);

const tenantFieldsArbitrary: fc.Arbitrary<TenantFields> = fc.record(
  { id: anyTenantId, label: anyLabel, imageUrl: anyImageUrl },
  { requiredKeys: [] },
);

/** Any JSON value in place of a field: wrong types are as likely from a client as wrong strings. */
function jsonOr<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/**
 * Names no DTO knows. Names of Object.prototype members are left to their own test below, so that
 * the general properties do not stumble over that one defect at random.
 */
const unknownFieldName = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 12 })
    .filter((name) => !['id', 'label', 'imageUrl'].includes(name) && !(name in {})),
  fc.constantFrom('ID', 'Label', 'image_url', 'did', 'createdAt', 'tenantId', 'extra'),
);

/** JSON bodies for create and update: arbitrary JSON, arbitrary objects, and near-miss tenant bodies. */
const anyJsonBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
  {
    weight: 4,
    arbitrary: fc.record(
      { id: jsonOr(anyTenantId), label: jsonOr(anyLabel), imageUrl: jsonOr(anyImageUrl) },
      { requiredKeys: [] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      { id: validTenantId, label: validLabel, imageUrl: fc.option(anyImageUrl, { nil: null }) },
      { requiredKeys: ['id', 'label'] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.record({ id: validTenantId, label: validLabel }),
        unknownFieldName,
        fc.jsonValue({ maxDepth: 1 }),
      )
      .map(([fields, name, value]) => ({ ...fields, [name]: value })),
  },
);

/** A label with a lone UTF-16 surrogate: valid JSON (as an escape), but not a Unicode string. */
const labelWithLoneSurrogate = fc
  .tuple(
    fc.string({ unit: 'grapheme-ascii', maxLength: 10 }),
    fc.integer({ min: 0xd800, max: 0xdfff }),
    fc.string({ unit: 'grapheme-ascii', maxLength: 10 }),
  )
  .map(([before, surrogate, after]) => `x${before}${String.fromCharCode(surrogate)}${after}`);

const digits = (min: number, max: number) => fc.integer({ min, max }).map((value) => String(value));

const anyPage = fc.oneof(
  { weight: 6, arbitrary: digits(0, 5) },
  { weight: 2, arbitrary: digits(0, 100_000_000) },
  digits(100_000_001, Number.MAX_SAFE_INTEGER),
  digits(-1_000, -1),
  fc.constantFrom('', ' ', '0.5', '1e2', '0x10', '+1', ' 1', 'NaN', 'Infinity', '00', '007', '١'),
  fc.string({ maxLength: 10 }),
);

const anySize = fc.oneof(
  { weight: 6, arbitrary: digits(1, 100) },
  digits(101, 1_000_000_000_000),
  fc.constantFrom('0', '-1', '', '1.0', '20 ', '1e1', '0x14', 'max', '100', '101'),
  fc.string({ maxLength: 10 }),
);

const anySort = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...sortValues) },
  fc.constantFrom(
    '',
    'ID',
    'id,DESC',
    'id,',
    ',desc',
    'id, desc',
    'did',
    'label;desc',
    'created_at',
  ),
  fc.string({ maxLength: 20 }),
);

const anyQ = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  fc.string({
    unit: fc.oneof(fc.constantFrom('a', '%', '_', '\\'), controlCharacter),
    maxLength: 10,
  }),
  fc.string({ unit: 'grapheme-ascii', minLength: 190, maxLength: 400 }),
  {
    weight: 2,
    arbitrary: fc.constantFrom('%', '_', '\\', "'", '%_%', 'seed', 'SEED', 'ALPHA', ''),
  },
);

/** Header values fetch can send: printable Latin-1 (api.md, tenant-scoped endpoints). */
const printableLatin1 = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
  .map((code) => String.fromCharCode(code));

// ---------------------------------------------------------------------------------------------------

describe('robustness of the tenant and DID endpoints under arbitrary input', () => {
  let service: TestService;
  /** One connection for the many snapshots; the service uses its own pool. */
  let database: pg.Client;
  const seedIds = ['seed-alpha', 'Seed.Beta', 'seed_gamma'];

  beforeAll(async () => {
    service = await startTestService();
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    for (const id of seedIds) {
      const response = await service.request(createPath, {
        method: 'POST',
        query: { id, label: `Seed ${id}` },
      });
      expect(response.status).toBe(201);
    }
  });

  afterAll(async () => {
    await database.end();
    await service.close();
  });

  async function snapshot(): Promise<DatabaseSnapshot> {
    const tenants = await database.query<TenantRow>(
      'SELECT id, label, image_url, updated_at::text AS updated_at FROM tenant ORDER BY id',
    );
    const dids = await database.query<DidRow>('SELECT did, tenant_id FROM tenant_did ORDER BY did');
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
        instance: new URL(path, service.url).pathname,
        code: expect.any(String),
      }),
    );
    expect(Object.hasOwn(errorCatalog, problem.code)).toBe(true);
    const code = problem.code as ErrorCode;
    expect(errorCatalog[code]).toEqual({ status: response.status, title: problem.title });
    expect(problem.type).toBe(`${service.publicBaseUrl}/ctrl/problems/${problemSlug(code)}`);
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
