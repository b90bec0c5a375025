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
      queryOf({ credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: 'x' } }] }),
    );
    expect(error.code).toBe('query_not_satisfied');
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
