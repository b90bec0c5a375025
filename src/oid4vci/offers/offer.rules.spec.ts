import { type DomainException } from '../../common/problem/domain.exception.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { checkClaims, checkMdocElements, drawTxCode } from './offer.rules.js';

const definition = (
  format: ConfigurationDefinition['format'],
  claims: ConfigurationDefinition['claims'],
): ConfigurationDefinition => ({
  format,
  vct: format === 'dc+sd-jwt' ? 'https://acme.example/badge' : null,
  credentialDefinition: null,
  claims,
  display: [],
  selectivelyDisclosable: null,
  expiresInSeconds: null,
  revocable: true,
  signingAlgorithm: null,
  cryptosuite: null,
  claimsFromLogin: null,
});

/** The fields a refusal names, or [] when the claims pass. */
function refused(claims: Record<string, unknown>, configuration: ConfigurationDefinition) {
  try {
    checkClaims(claims, configuration);
    return [];
  } catch (error) {
    return ((error as DomainException).errors ?? []).map((entry) => entry.field);
  }
}

describe('checkClaims', () => {
  const degrees = definition('dc+sd-jwt', [
    { path: ['degrees', null, 'type'], mandatory: true },
    { path: ['nationalities'] },
  ]);

  it('matches null in a path with every array element, and requires it in each', () => {
    expect(refused({ degrees: [{ type: 'BSc' }, { type: 'MSc' }] }, degrees)).toEqual([]);
    expect(refused({ degrees: [{ type: 'BSc' }, { year: 2020 }] }, degrees)).toEqual([
      'claims.degrees.1.year',
      'claims.degrees.*.type',
    ]);
    expect(refused({ degrees: [] }, degrees)).toEqual(['claims.degrees.*.type']);
  });

  it('lets a described claim hold anything under it', () => {
    const given = { degrees: [{ type: 'BSc' }], nationalities: ['DE', { any: 'thing' }] };
    expect(refused(given, degrees)).toEqual([]);
  });

  it('refuses a scalar where the configuration describes claims inside it', () => {
    expect(refused({ degrees: 'BSc' }, degrees)).toEqual([
      'claims.degrees',
      'claims.degrees.*.type',
    ]);
  });

  it('reads ldp_vc paths under credentialSubject; a bare credentialSubject path takes any claim', () => {
    const named = definition('ldp_vc', [{ path: ['credentialSubject', 'name'], mandatory: true }]);
    expect(refused({ name: 'Erika' }, named)).toEqual([]);
    expect(refused({ age: 40 }, named)).toEqual(['claims.age', 'claims.name']);
    const whole = definition('ldp_vc', [{ path: ['credentialSubject'] }]);
    expect(refused({ anything: { at: ['all'] } }, whole)).toEqual([]);
  });

  it('takes any claims when the configuration lists none, but never the issuer’s own', () => {
    expect(refused({ whatever: 1 }, definition('dc+sd-jwt', []))).toEqual([]);
    expect(refused({ cnf: {}, _sd: [] }, definition('dc+sd-jwt', []))).toEqual([
      'claims.cnf',
      'claims._sd',
    ]);
  });
});

describe('drawTxCode', () => {
  it('draws six digits for true, and the asked length and alphabet otherwise', () => {
    expect(drawTxCode(true)).toEqual({
      description: { length: 6, input_mode: 'numeric' },
      code: expect.stringMatching(/^\d{6}$/),
    });
    expect(drawTxCode({ length: 8, inputMode: 'text' })!.code).toMatch(/^[A-HJKMNP-Z2-9]{8}$/);
    expect(drawTxCode(undefined)).toBeNull();
  });
});

describe('checkMdocElements', () => {
  const ns = 'org.iso.18013.5.1';
  const errorsOf = (claims: Record<string, unknown>) => {
    try {
      checkMdocElements(claims);
      return [];
    } catch (error) {
      return (error as DomainException).errors ?? [];
    }
  };

  it('takes elements of the types ISO/IEC 18013-5 gives them', () => {
    expect(errorsOf({ [ns]: { family_name: 'Mustermann', birth_date: '1963-08-12' } })).toEqual([]);
  });

  it('names each element of the wrong type, and a namespace that holds no elements', () => {
    const fields = errorsOf({
      [ns]: { birth_date: 19630812, family_name: 'Mustermann', expiry_date: 'soon' },
    }).map((error) => error.field);
    expect(fields.sort()).toEqual([`claims.${ns}.birth_date`, `claims.${ns}.expiry_date`]);
    expect(errorsOf({ [ns]: 'Mustermann' }).map((error) => error.field)).toEqual([`claims.${ns}`]);
  });

  it('checks mdoc claims alongside the configuration’s: described elements only, no reserved names', () => {
    const mdl = definition('mso_mdoc', [{ path: [ns, 'family_name'], mandatory: true }]);
    expect(refused({ [ns]: { family_name: 'Mustermann' } }, mdl)).toEqual([]);
    expect(refused({ [ns]: { portrait: 'x' } }, mdl)).toEqual([
      `claims.${ns}.portrait`,
      `claims.${ns}.family_name`,
    ]);
  });
});
