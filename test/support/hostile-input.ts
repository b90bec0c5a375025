import fc from 'fast-check';
import { isValidLabel, sortValues, type TenantFields } from './robustness-harness.js';

/** Hostile input for the robustness properties: what a careless or malicious client may send. */
// ---------------------------------------------------------------------------------------------------
// Arbitraries. Query-string values stay well below Node's 16 kB header limit, which has its own test
// in errors.e2e-spec.ts.

export const controlCharacter = fc
  .integer({ min: 0, max: 0x9f })
  .filter((code) => code < 0x20 || code >= 0x7f)
  .map((code) => String.fromCharCode(code));

export const idCharacter = fc.constantFrom(...'abcXYZ019_.-');

export const validTenantId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/);

export const awkwardTenantIds = fc.constantFrom(
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

export const anyTenantId = fc.oneof(
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

export const validLabel = fc
  .oneof(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 190, maxLength: 200 }),
  )
  .filter(isValidLabel);

export const anyLabel = fc.oneof(
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

export const anyImageUrl = fc.oneof(
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

export const tenantFieldsArbitrary: fc.Arbitrary<TenantFields> = fc.record(
  { id: anyTenantId, label: anyLabel, imageUrl: anyImageUrl },
  { requiredKeys: [] },
);

/** Any JSON value in place of a field: wrong types are as likely from a client as wrong strings. */
export function jsonOr<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/**
 * Names no DTO knows. Names of Object.prototype members are left to their own test below, so that
 * the general properties do not stumble over that one defect at random.
 */
export const unknownFieldName = fc.oneof(
  fc
    .string({ minLength: 1, maxLength: 12 })
    .filter((name) => !['id', 'label', 'imageUrl'].includes(name) && !(name in {})),
  fc.constantFrom('ID', 'Label', 'image_url', 'did', 'createdAt', 'tenantId', 'extra'),
);

/** JSON bodies for create and update: arbitrary JSON, arbitrary objects, and near-miss tenant bodies. */
export const anyJsonBody: fc.Arbitrary<unknown> = fc.oneof(
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
export const labelWithLoneSurrogate = fc
  .tuple(
    fc.string({ unit: 'grapheme-ascii', maxLength: 10 }),
    fc.integer({ min: 0xd800, max: 0xdfff }),
    fc.string({ unit: 'grapheme-ascii', maxLength: 10 }),
  )
  .map(([before, surrogate, after]) => `x${before}${String.fromCharCode(surrogate)}${after}`);

export const digits = (min: number, max: number) =>
  fc.integer({ min, max }).map((value) => String(value));

export const anyPage = fc.oneof(
  { weight: 6, arbitrary: digits(0, 5) },
  { weight: 2, arbitrary: digits(0, 100_000_000) },
  digits(100_000_001, Number.MAX_SAFE_INTEGER),
  digits(-1_000, -1),
  fc.constantFrom('', ' ', '0.5', '1e2', '0x10', '+1', ' 1', 'NaN', 'Infinity', '00', '007', '١'),
  fc.string({ maxLength: 10 }),
);

export const anySize = fc.oneof(
  { weight: 6, arbitrary: digits(1, 100) },
  digits(101, 1_000_000_000_000),
  fc.constantFrom('0', '-1', '', '1.0', '20 ', '1e1', '0x14', 'max', '100', '101'),
  fc.string({ maxLength: 10 }),
);

export const anySort = fc.oneof(
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

export const anyQ = fc.oneof(
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
export const printableLatin1 = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff }))
  .map((code) => String.fromCharCode(code));

// ---------------------------------------------------------------------------------------------------
