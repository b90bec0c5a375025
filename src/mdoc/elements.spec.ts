import { cborDecode, cborEncode, DateOnly } from '@owf/mdoc';
import { elementLimits, elementValues } from './elements.js';

const mdl = 'org.iso.18013.5.1';
const pid = 'eu.europa.ec.eudi.pid.1';

const valuesOf = (input: unknown) => {
  const result = elementValues(input);
  if (!('values' in result)) throw new Error(JSON.stringify(result.errors));
  return result.values;
};
const errorsOf = (input: unknown) => {
  const result = elementValues(input);
  if (!('errors' in result)) throw new Error('accepted');
  return result.errors;
};

describe('elementValues', () => {
  it('types the known mDL and PID elements as ISO wants them, tag 1004 for dates', () => {
    const portrait = Buffer.from([0xff, 0xd8, 0xff]).toString('base64url');
    const values = valuesOf({
      [mdl]: {
        family_name: 'Mustermann',
        birth_date: '1963-08-12',
        portrait,
        age_over_18: true,
        height: 180,
        driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2020-01-02' }],
      },
      [pid]: { birth_date: '1963-08-12', issuance_date: '2026-01-01' },
    });
    expect(values[mdl].birth_date).toBeInstanceOf(DateOnly);
    expect(values[mdl].portrait).toEqual(new Uint8Array([0xff, 0xd8, 0xff]));
    expect(values[pid].issuance_date).toBeInstanceOf(DateOnly);
    const privileges = values[mdl].driving_privileges as Record<string, unknown>[];
    expect(privileges[0].issue_date).toBeInstanceOf(DateOnly);
    // full-date is tag 1004 (RFC 8943) over the text: d9 03ec.
    expect(Buffer.from(cborEncode(values[mdl].birth_date)).toString('hex')).toBe(
      'd903ec6a313936332d30382d3132',
    );
    expect(cborDecode<DateOnly>(cborEncode(values[mdl].birth_date)).toISOString()).toBe(
      '1963-08-12',
    );
  });

  it('passes unknown elements and namespaces through as JSON types', () => {
    const values = valuesOf({
      'com.example.1': { nested: { a: [1, 'b', null] }, birth_date: 'whenever' },
    });
    expect(values['com.example.1']).toEqual({
      nested: { a: [1, 'b', null] },
      birth_date: 'whenever',
    });
  });

  it('names each element of the wrong type', () => {
    const errors = errorsOf({
      [mdl]: {
        birth_date: '1963-02-30',
        age_over_18: 'yes',
        portrait: 'not base64url!',
        height: -1,
      },
      [pid]: { family_name: 42 },
    });
    expect(errors.map((error) => error.path)).toEqual([
      [mdl, 'birth_date'],
      [mdl, 'age_over_18'],
      [mdl, 'portrait'],
      [mdl, 'height'],
      [pid, 'family_name'],
    ]);
  });

  it('refuses what is not keyed by namespace and element, and what is beyond the limits', () => {
    expect(errorsOf([])[0].path).toEqual([]);
    expect(errorsOf({})[0].path).toEqual([]);
    expect(errorsOf({ [mdl]: 'x' })[0].path).toEqual([mdl]);
    const many = Object.fromEntries(
      Array.from({ length: elementLimits.elementsPerNamespace + 1 }, (_, i) => [`e${i}`, i]),
    );
    expect(errorsOf({ [mdl]: many })[0].path).toEqual([mdl]);
    let deep: unknown = 1;
    for (let i = 0; i < elementLimits.depth + 2; i++) deep = [deep];
    expect(errorsOf({ 'com.example.1': { deep } })[0].path).toEqual(['com.example.1', 'deep']);
    expect(
      errorsOf({ [mdl]: { family_name: 'x'.repeat(elementLimits.stringChars + 1) } })[0].path,
    ).toEqual([mdl, 'family_name']);
  });

  it('keeps a __proto__ member an own member', () => {
    const values = valuesOf(JSON.parse('{"com.example.1": {"__proto__": {"polluted": true}}}'));
    expect(Object.hasOwn(values['com.example.1'], '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
