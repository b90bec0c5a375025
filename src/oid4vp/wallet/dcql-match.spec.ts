import { type VerifiedPresentation } from '../../credentials/verifying/wallet-presentations.service.js';
import { checkMatch, queryOf } from './dcql-match.js';
import { AnswerFailure } from './wallet-answer.js';

const vct = 'https://acme.example/credentials/employee-badge';
const stored = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [vct] },
      claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
    },
    {
      id: 'alumni',
      format: 'ldp_vc',
      meta: { type_values: [['VerifiableCredential', 'AlumniCredential']] },
      claims: [{ path: ['credentialSubject', 'alumniOf'] }],
    },
  ],
  credential_sets: [{ options: [['badge'], ['alumni']] }],
};

const badge = (claims: Record<string, unknown>, over: Partial<VerifiedPresentation> = {}) => ({
  format: 'dc+sd-jwt' as const,
  issuer: 'https://issuer.example',
  vct,
  claims,
  holderKeyThumbprint: 'thumb',
  holderBinding: true,
  status: 'valid' as const,
  ...over,
});

const failure = (run: () => void): AnswerFailure => {
  try {
    run();
  } catch (error) {
    return error as AnswerFailure;
  }
  throw new Error('matched');
};

describe('DCQL matching of verified presentations', () => {
  const { query, formats } = queryOf(stored);

  it('answers query_not_satisfied when the library cannot walk the disclosed claims', () => {
    // An own member named __proto__ (as JSON.parse makes it), which the library's merge refuses.
    const claims = JSON.parse(
      '{"given_name":{"__proto__":{"x":1}},"address":{"locality":"B"}}',
    ) as Record<string, unknown>;
    expect(failure(() => checkMatch(query, new Map([['badge', [badge(claims)]]])))).toMatchObject({
      code: 'query_not_satisfied',
      reason: 'The disclosed claims could not be matched against the query.',
    });
  });

  it('knows each credential query’s format', () => {
    expect([...formats]).toEqual([
      ['badge', 'dc+sd-jwt'],
      ['alumni', 'ldp_vc'],
    ]);
  });

  it('accepts one option of the credential set with every requested claim', () => {
    expect(() =>
      checkMatch(
        query,
        new Map([['badge', [badge({ given_name: 'E', address: { locality: 'B' } })]]]),
      ),
    ).not.toThrow();
    const alumni: VerifiedPresentation = {
      format: 'ldp_vc',
      issuer: 'did:key:z6Mk',
      types: ['VerifiableCredential', 'AlumniCredential'],
      claims: { credentialSubject: { alumniOf: 'Uni' } },
      holderKeyThumbprint: null,
      holderBinding: true,
      status: 'none',
    };
    expect(() => checkMatch(query, new Map([['alumni', [alumni]]]))).not.toThrow();
  });

  it('names the claim path not disclosed, never a value', () => {
    const error = failure(() =>
      checkMatch(query, new Map([['badge', [badge({ given_name: 'Erika' })]]])),
    );
    expect(error).toBeInstanceOf(AnswerFailure);
    expect(error.code).toBe('query_not_satisfied');
    expect(error.reason).toMatch(/badge does not disclose the requested claim address\.locality/);
    expect(error.reason).not.toContain('Erika');
  });

  it('refuses another vct', () => {
    const error = failure(() =>
      checkMatch(
        query,
        new Map([
          ['badge', [badge({ given_name: 'E', address: { locality: 'B' } }, { vct: 'other' })]],
        ]),
      ),
    );
    expect(error.reason).toMatch(/not of a kind the query accepts/);
  });

  it('refuses an answer that lacks what the query requires', () => {
    const required = queryOf({ credentials: stored.credentials }).query;
    const error = failure(() =>
      checkMatch(
        required,
        new Map([['badge', [badge({ given_name: 'E', address: { locality: 'B' } })]]]),
      ),
    );
    expect(error.code).toBe('query_not_satisfied');
    expect(error.reason).toMatch(/lacks a credential the query requires/);
  });

  it('fails a query of a format this verifier does not check', () => {
    const error = failure(() =>
      queryOf({
        credentials: [{ id: 'j', format: 'jwt_vc_json', meta: { type_values: [['x']] } }],
      }),
    );
    expect(error.code).toBe('query_not_satisfied');
  });

  describe('mso_mdoc', () => {
    const doctype = 'org.iso.18013.5.1.mDL';
    const iso = 'org.iso.18013.5.1';
    const asked = queryOf({
      credentials: [
        {
          id: 'mdl',
          format: 'mso_mdoc',
          meta: { doctype_value: doctype },
          claims: [
            { path: [iso, 'family_name'], intent_to_retain: true },
            { path: [iso, 'birth_date'] },
          ],
        },
      ],
    });
    const mdl = (elements: Record<string, Record<string, unknown>>, type = doctype) => ({
      format: 'mso_mdoc' as const,
      issuer: 'CN=DS',
      doctype: type,
      claims: elements,
      holderKeyThumbprint: 'thumb',
      holderBinding: true,
      status: 'none' as const,
    });

    it('reads the format and the doctype of each mdoc query', () => {
      expect(asked.formats).toEqual(new Map([['mdl', 'mso_mdoc']]));
      expect(asked.doctypes).toEqual(new Map([['mdl', doctype]]));
    });

    it('matches the elements by [namespace, element]', () => {
      const all = { [iso]: { family_name: 'Mustermann', birth_date: '1963-08-12' } };
      expect(() => checkMatch(asked.query, new Map([['mdl', [mdl(all)]]]))).not.toThrow();
    });

    it('names the element missing, or another namespace holding it', () => {
      for (const elements of [
        { [iso]: { family_name: 'Mustermann' } } as Record<string, Record<string, unknown>>,
        { 'org.example.other': { family_name: 'Mustermann', birth_date: '1963-08-12' } },
      ]) {
        expect(failure(() => checkMatch(asked.query, new Map([['mdl', [mdl(elements)]]])))).toEqual(
          expect.objectContaining({
            code: 'query_not_satisfied',
            reason: expect.stringContaining(`does not disclose the requested claim`) as unknown,
          }),
        );
      }
    });

    it('fails another doctype', () => {
      const elements = { [iso]: { family_name: 'M', birth_date: '1963-08-12' } };
      const other = mdl(elements, 'eu.europa.ec.eudi.pid.1');
      expect(failure(() => checkMatch(asked.query, new Map([['mdl', [other]]])))).toMatchObject({
        code: 'query_not_satisfied',
        reason:
          'A credential for mdl is not of a kind the query accepts (vct, type or doctype, or holder binding).',
      });
    });
  });
  it('counts an x5c credential for an aki query only when its chain names one of the key ids', () => {
    const akiQuery = queryOf({
      credentials: [
        {
          id: 'badge',
          format: 'dc+sd-jwt',
          meta: { vct_values: [vct] },
          trusted_authorities: [{ type: 'aki', values: ['a2V5LW9uZQ', 'a2V5LXR3bw'] }],
        },
      ],
    }).query;
    const chain = (keyIdentifiers: string[]) => ({
      x5c: { leafSubject: 'CN=Leaf', anchorSubject: 'CN=Root', keyIdentifiers },
    });
    const kept = new Map([['badge', [badge({}, chain(['bGVhZg', 'a2V5LXR3bw']))]]]);
    expect(() => checkMatch(akiQuery, kept)).not.toThrow();
    for (const presented of [badge({}, chain(['bGVhZg'])), badge({})]) {
      expect(failure(() => checkMatch(akiQuery, new Map([['badge', [presented]]])))).toMatchObject({
        code: 'query_not_satisfied',
        reason:
          "A credential for badge has no x5c certificate with a key identifier the query's trusted_authorities name.",
      });
    }
  });
});
