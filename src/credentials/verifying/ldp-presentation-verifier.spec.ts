import { checkProblemTypes, type CheckProblem } from '../credential.errors.js';
import { validityProblem } from '../credential-checks.js';
import { statusSetDetail, untrustedProblem } from './verification-findings.js';
import { unsupportedMethod, UnresolvableDidError } from '../did-resolution/unresolvable-did.js';
import { afterBinding, failureCodeOf } from './ldp-presentation-verifier.js';

const where = 'verifiablePresentation.verifiableCredential[0]';

/** A credential's finding as the presentation verifier words it. */
const credential = (type: string, check: string, detail: string): CheckProblem => ({
  type,
  check: 'credential',
  title: '',
  detail: `${where}: ${check}: ${detail}`,
});

describe('failureCodeOf', () => {
  it.each([
    [{ type: checkProblemTypes.proof, check: 'proof' }, 'signature_invalid'],
    [{ type: checkProblemTypes.holder, check: 'holder' }, 'key_binding_invalid'],
    [{ type: checkProblemTypes.challenge, check: 'challenge' }, 'nonce_mismatch'],
    [{ type: checkProblemTypes.domain, check: 'domain' }, 'audience_mismatch'],
  ] as const)('maps the presentation’s %j to %s', (problem, code) => {
    expect(failureCodeOf({ ...problem, title: '', detail: 'x' })).toBe(code);
  });

  it.each([
    [
      credential(checkProblemTypes.proof, 'proof', 'proof (eddsa-rdfc-2022): invalid'),
      'signature_invalid',
    ],
    [
      credential(
        checkProblemTypes.issuer,
        'issuer',
        "untrusted issuer: 'did:key:z6Mk' is not in the trusted issuers list",
      ),
      'issuer_not_trusted',
    ],
    [
      credential(
        checkProblemTypes.issuer,
        'issuer',
        "Cannot resolve 'did:web:gone.example': answered HTTP 404",
      ),
      'issuer_unresolved',
    ],
    [
      credential(
        checkProblemTypes.issuer,
        'issuer',
        "'did:example:1' is not a DID this service resolves (did:key)",
      ),
      'issuer_unresolved',
    ],
    [
      credential(checkProblemTypes.issuer, 'issuer', 'no proof by did:key:z6Mk'),
      'signature_invalid',
    ],
    [
      credential(
        checkProblemTypes.validity,
        'validity',
        'expired: validUntil 2020-01-01T00:00:00Z',
      ),
      'credential_expired',
    ],
    [
      credential(
        checkProblemTypes.validity,
        'validity',
        'not valid before validFrom 2999-01-01T00:00:00Z',
      ),
      'credential_not_yet_valid',
    ],
    [
      credential(checkProblemTypes.status, 'status', 'the credential is revoked'),
      'credential_revoked',
    ],
    [
      credential(checkProblemTypes.status, 'status', 'the credential is suspended'),
      'credential_suspended',
    ],
    [
      credential(
        checkProblemTypes.statusRetrieval,
        'status',
        'the status list x answered HTTP 500',
      ),
      'status_unavailable',
    ],
  ])('maps a credential’s finding %#', (problem, code) => {
    expect(failureCodeOf(problem)).toBe(code);
  });

  // The findings worded by the functions that make them: a change of wording fails here.
  it.each([
    [checkProblemTypes.status, 'status', statusSetDetail('revocation'), 'credential_revoked'],
    [checkProblemTypes.status, 'status', statusSetDetail('suspension'), 'credential_suspended'],
    [
      checkProblemTypes.validity,
      'validity',
      validityProblem(
        {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          validUntil: '2020-01-01T00:00:00Z',
        },
        new Date(),
      ),
      'credential_expired',
    ],
    [
      checkProblemTypes.validity,
      'validity',
      validityProblem(
        { '@context': ['https://www.w3.org/ns/credentials/v2'], validFrom: '2999-01-01T00:00:00Z' },
        new Date(),
      ),
      'credential_not_yet_valid',
    ],
    [
      checkProblemTypes.issuer,
      'issuer',
      untrustedProblem('did:key:z6Mk', new Set(['did:key:other'])),
      'issuer_not_trusted',
    ],
    [
      checkProblemTypes.issuer,
      'issuer',
      new UnresolvableDidError('did:web:gone.example', 'answered HTTP 404').message,
      'issuer_unresolved',
    ],
    [
      checkProblemTypes.issuer,
      'issuer',
      unsupportedMethod('did:example:1').message,
      'issuer_unresolved',
    ],
  ])('maps the verifier’s own %s finding (%s: %s) to %s', (type, check, detail, code) => {
    expect(detail).toEqual(expect.any(String));
    expect(failureCodeOf(credential(type, check, detail as string))).toBe(code);
  });
});

describe('afterBinding', () => {
  it('leaves the holder’s proof standing only for a credential’s validity or status', () => {
    const bound = [
      credential(checkProblemTypes.validity, 'validity', 'expired'),
      credential(checkProblemTypes.status, 'status', statusSetDetail('revocation')),
      credential(checkProblemTypes.statusRetrieval, 'status', 'the list could not be fetched'),
    ];
    const unbound: CheckProblem[] = [
      credential(checkProblemTypes.proof, 'proof', 'invalid'),
      credential(checkProblemTypes.issuer, 'issuer', 'untrusted issuer'),
      { type: checkProblemTypes.proof, check: 'proof', title: '', detail: 'x' },
      { type: checkProblemTypes.holder, check: 'holder', title: '', detail: 'x' },
      { type: checkProblemTypes.challenge, check: 'challenge', title: '', detail: 'x' },
      { type: checkProblemTypes.domain, check: 'domain', title: '', detail: 'x' },
    ];
    expect(bound.map(afterBinding)).toEqual([true, true, true]);
    expect(unbound.map(afterBinding)).toEqual(unbound.map(() => false));
  });
});
