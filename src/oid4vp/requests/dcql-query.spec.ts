import { checkDcqlQuery } from './dcql-query.js';

const vct = 'https://globex.example/credentials/alumni';
const sdJwt = { id: 'alumni', format: 'dc+sd-jwt', meta: { vct_values: [vct] } };
const mdoc = { id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'org.iso.18013.5.1.mDL' } };
const fieldsOf = (input: unknown) => {
  const result = checkDcqlQuery(input as Record<string, unknown>);
  return 'errors' in result ? result.errors.map((error) => error.field) : [];
};

describe('checkDcqlQuery', () => {
  it('accepts SD-JWT VC and Data Integrity queries, with claim sets and credential sets', () => {
    const result = checkDcqlQuery({
      credentials: [
        {
          ...sdJwt,
          claims: [
            { id: 'a', path: ['given_name'] },
            { id: 'b', path: ['address', 'locality'] },
          ],
          claim_sets: [['a', 'b'], ['a']],
        },
        {
          id: 'badge',
          format: 'ldp_vc',
          meta: { type_values: [['VerifiableCredential', 'AlumniCredential']] },
          claims: [{ path: ['credentialSubject', 'name'] }],
        },
      ],
      credential_sets: [{ options: [['alumni'], ['badge']] }],
    });
    expect(result).toEqual({ query: expect.objectContaining({ credentials: expect.any(Array) }) });
  });

  it('accepts an mdoc query: doctype_value, claims by [namespace, element], intent_to_retain', () => {
    const claims = [
      { id: 'family', path: ['org.iso.18013.5.1', 'family_name'], intent_to_retain: true },
      { id: 'birth', path: ['org.iso.18013.5.1', 'birth_date'] },
    ];
    const result = checkDcqlQuery({ credentials: [{ ...mdoc, claims, claim_sets: [['family']] }] });
    expect(result).toEqual({
      query: {
        credentials: [
          {
            ...mdoc,
            claims,
            claim_sets: [['family']],
            multiple: false,
            require_cryptographic_holder_binding: true,
          },
        ],
      },
    });
  });

  it('refuses ids and claim path steps an object inherits', () => {
    expect(
      fieldsOf({
        credentials: [
          { ...sdJwt, id: '__proto__' },
          {
            ...sdJwt,
            id: 'badge',
            claims: [
              { id: 'constructor', path: ['given_name'] },
              { path: ['address', 'hasOwnProperty'] },
              { path: ['toString'] },
            ],
          },
        ],
      }),
    ).toEqual([
      'dcqlQuery.credentials.0.id',
      'dcqlQuery.credentials.1.claims.0.id',
      'dcqlQuery.credentials.1.claims.1.path.1',
      'dcqlQuery.credentials.1.claims.2.path.0',
    ]);
  });

  it('keeps the library’s reading: defaults explicit, unknown members dropped', () => {
    const result = checkDcqlQuery({ credentials: [{ ...sdJwt, extra: 1 }], other: true });
    expect(result).toEqual({
      query: {
        credentials: [{ ...sdJwt, multiple: false, require_cryptographic_holder_binding: true }],
      },
    });
  });

  it.each<[string, unknown, string]>([
    ['no credentials member', {}, 'dcqlQuery.credentials'],
    ['an empty credentials list', { credentials: [] }, 'dcqlQuery.credentials'],
    ['a bad id', { credentials: [{ ...sdJwt, id: 'a b' }] }, 'dcqlQuery.credentials.0.id'],
    [
      'an empty path',
      { credentials: [{ ...sdJwt, claims: [{ path: [] }] }] },
      'dcqlQuery.credentials.0.claims.0.path',
    ],
    [
      'jwt_vc_json',
      { credentials: [{ id: 'j', format: 'jwt_vc_json', meta: { type_values: [['x']] } }] },
      'dcqlQuery.credentials.0.format',
    ],
    [
      'an mdoc query without doctype_value',
      { credentials: [{ id: 'm', format: 'mso_mdoc', meta: {} }] },
      'dcqlQuery.credentials.0.meta.doctype_value',
    ],
    [
      'an mdoc query with an empty doctype_value',
      { credentials: [{ id: 'm', format: 'mso_mdoc', meta: { doctype_value: '' } }] },
      'dcqlQuery.credentials.0.meta.doctype_value',
    ],
    [
      'an mdoc claim by the drafts’ namespace and claim_name',
      {
        credentials: [
          { ...mdoc, claims: [{ namespace: 'org.iso.18013.5.1', claim_name: 'family_name' }] },
        ],
      },
      'dcqlQuery.credentials.0.claims.0.path',
    ],
    [
      'an mdoc claim path of three steps',
      { credentials: [{ ...mdoc, claims: [{ path: ['org.iso.18013.5.1', 'a', 'b'] }] }] },
      'dcqlQuery.credentials.0.claims.0.path',
    ],
    [
      'an mdoc claim path of one step',
      { credentials: [{ ...mdoc, claims: [{ path: ['org.iso.18013.5.1'] }] }] },
      'dcqlQuery.credentials.0.claims.0.path',
    ],
    [
      'a second query of another unknown format',
      { credentials: [sdJwt, { id: 'j', format: 'jwt_vc_json', meta: { type_values: [['x']] } }] },
      'dcqlQuery.credentials.1.format',
    ],
    [
      'no vct_values',
      { credentials: [{ id: 'q', format: 'dc+sd-jwt', meta: {} }] },
      'dcqlQuery.credentials.0.meta.vct_values',
    ],
    [
      'an ldp_vc query without meta',
      { credentials: [{ id: 'q', format: 'ldp_vc' }] },
      'dcqlQuery.credentials.0.meta',
    ],
    ['duplicate ids', { credentials: [sdJwt, sdJwt] }, 'dcqlQuery'],
    [
      'an undefined claim set id',
      { credentials: [{ ...sdJwt, claims: [{ id: 'a', path: ['a'] }], claim_sets: [['z']] }] },
      'dcqlQuery',
    ],
    [
      'over 16 KiB',
      { credentials: [{ ...sdJwt, claims: [{ path: ['x'.repeat(16 * 1024)] }] }] },
      'dcqlQuery',
    ],
    ['deep nesting', { credentials: [{ ...sdJwt, x: [[[[[[[[[[1]]]]]]]]]] }] }, 'dcqlQuery'],
    [
      'too many credential queries',
      { credentials: Array.from({ length: 17 }, (_, i) => ({ ...sdJwt, id: `q${i}` })) },
      'dcqlQuery.credentials',
    ],
    [
      'too many claims',
      {
        credentials: [
          { ...sdJwt, claims: Array.from({ length: 65 }, (_, i) => ({ path: [`c${i}`] })) },
        ],
      },
      'dcqlQuery.credentials.0.claims',
    ],
    [
      'too many credential sets',
      {
        credentials: [sdJwt],
        credential_sets: Array.from({ length: 17 }, () => ({ options: [['alumni']] })),
      },
      'dcqlQuery.credential_sets',
    ],
  ])('refuses %s, naming the field', (_, input, field) => {
    expect(fieldsOf(input)).toContain(field);
  });

  it('names the unsupported format and what is supported, without echoing a long value', () => {
    const result = checkDcqlQuery({
      credentials: [{ id: 'q', format: `mso_mdoc${'x'.repeat(500)}` }],
    });
    if (!('errors' in result)) throw new Error('accepted');
    expect(result.errors[0].message).toMatch(
      /^'mso_mdocx{56}' is not supported: only dc\+sd-jwt, ldp_vc, mso_mdoc$/,
    );
    expect(JSON.stringify(result).length).toBeLessThan(300);
  });
  it('keeps aki trusted authorities, and refuses the types it does not check and too many', () => {
    const aki = { type: 'aki', values: ['s9tIpPmhxdiuNkHMEWNpYim8S8Y'] };
    const kept = checkDcqlQuery({ credentials: [{ ...sdJwt, trusted_authorities: [aki] }] });
    expect(kept).toEqual({
      query: expect.objectContaining({
        credentials: [expect.objectContaining({ trusted_authorities: [aki] })],
      }),
    });
    for (const type of ['etsi_tl', 'openid_federation']) {
      const refused = checkDcqlQuery({
        credentials: [
          { ...sdJwt, trusted_authorities: [aki, { type, values: ['https://tl.example'] }] },
        ],
      });
      expect(refused).toEqual({
        errors: [
          {
            field: 'dcqlQuery.credentials.0.trusted_authorities.1.type',
            message: `'${type}' is not supported: only aki`,
          },
        ],
      });
    }
    expect(
      fieldsOf({ credentials: [{ ...sdJwt, trusted_authorities: Array(9).fill(aki) }] }),
    ).toEqual(['dcqlQuery.credentials.0.trusted_authorities']);
    expect(
      fieldsOf({
        credentials: [
          { ...sdJwt, trusted_authorities: [{ type: 'aki', values: Array(33).fill('AAAA') }] },
        ],
      }),
    ).toEqual(['dcqlQuery.credentials.0.trusted_authorities.0.values']);
    // Not base64url: the library's own check.
    expect(
      fieldsOf({
        credentials: [{ ...sdJwt, trusted_authorities: [{ type: 'aki', values: ['a+b/'] }] }],
      }).length,
    ).toBeGreaterThan(0);
  });
});
