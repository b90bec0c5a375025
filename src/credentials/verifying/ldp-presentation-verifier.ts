import { Injectable } from '@nestjs/common';
import { DomainException } from '../../common/problem/domain.exception.js';
import { asArray, idOf, isJsonObject, issuerIdOf } from '../credential-checks.js';
import { checkProblemTypes, type CheckProblem } from '../credential.errors.js';
import { statusSetDetail } from './verification-findings.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { PresentationsService } from './presentations.service.js';
import { didIssuerKeys } from '../sd-jwt/did-issuer-keys.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
  type PresentationFailureCode,
} from '../wallet-presentation.types.js';
import { jwkThumbprint, publicJwkOf } from '../../jose/jwk.js';

type Json = Record<string, unknown>;

type Failure = Extract<PresentationCheck, { verified: false }>;

const fail = (code: PresentationFailureCode, reason: string): Failure => ({
  verified: false,
  code,
  reason,
});

/**
 * One `ldp_vc` presentation (OpenID4VP 1.0 appendix B.1): a Verifiable Presentation carrying exactly
 * one credential (one answer per credential query), checked by the VC API's presentation verifier with
 * the request's nonce as `challenge` and client id as `domain`; its findings become failure codes.
 */
@Injectable()
export class LdpPresentationVerifier {
  constructor(
    private readonly presentations: PresentationsService,
    private readonly dids: DidResolution,
  ) {}

  async verify(expectation: PresentationExpectation): Promise<PresentationCheck> {
    const { presentation } = expectation;
    if (!isJsonObject(presentation)) {
      return fail('presentation_malformed', 'the presentation is not a JSON object');
    }
    const credentials = asArray(presentation.verifiableCredential);
    if (credentials.length !== 1 || !isJsonObject(credentials[0])) {
      return fail(
        'presentation_malformed',
        `the presentation carries ${credentials.length} credentials, not exactly one`,
      );
    }
    const credential = credentials[0];
    try {
      await this.presentations.verify(expectation.tenantId, {
        verifiablePresentation: presentation,
        options: {
          challenge: expectation.nonce,
          domain: expectation.clientId,
          // The request's list, else the tenant's (TrustedIssuerPolicy, as for the VC API).
          trustedIssuers: expectation.trustedIssuers && [...expectation.trustedIssuers],
        },
      });
    } catch (error) {
      if (!(error instanceof DomainException) || error.code === 'TENANT_NOT_FOUND') throw error;
      if (error.code !== 'CREDENTIAL_NOT_VERIFIED') {
        return fail('presentation_malformed', error.detail);
      }
      const problems = (error.extensions.problemDetails ?? []) as CheckProblem[];
      const [first] = problems;
      if (first === undefined) return fail('signature_invalid', error.detail);
      const failure = fail(failureCodeOf(first), `${first.check} check: ${first.detail}`);
      return holderBound(presentation, credential) && problems.every(afterBinding)
        ? { ...failure, bound: true }
        : failure;
    }
    const proof = asArray(presentation.proof).find(isJsonObject) ?? {};
    const method = idOf(proof.verificationMethod);
    const holder = holderOf(presentation);
    const claims: Json = { ...credential };
    delete claims.proof;
    return {
      verified: true,
      presentation: {
        format: 'ldp_vc',
        issuer: issuerIdOf(credential) ?? '',
        types: asArray(credential.type).filter((type): type is string => typeof type === 'string'),
        claims,
        holderKeyThumbprint: await this.thumbprintOf(holder, method, expectation.signal),
        holderBinding: holderBound(presentation, credential),
        status: credential.credentialStatus === undefined ? 'none' : 'valid',
      },
    };
  }

  /** The thumbprint of the key that made the presentation's proof, when its DID gives it as a JWK. */
  private async thumbprintOf(
    holder: string | undefined,
    method: string | undefined,
    deadline: AbortSignal,
  ): Promise<string | null> {
    if (holder === undefined || method === undefined || !holder.startsWith('did:')) return null;
    const keys = await didIssuerKeys(this.dids, holder, method, deadline, 'authentication');
    const [key] = typeof keys === 'string' ? [] : keys;
    if (key === undefined) return null;
    const jwk = publicJwkOf(key);
    return typeof jwk === 'string' ? null : jwkThumbprint(jwk);
  }
}

/** The presentation's holder: its `holder`, else the DID of its proof's verification method. */
function holderOf(presentation: Json): string | undefined {
  const proof = asArray(presentation.proof).find(isJsonObject) ?? {};
  return idOf(presentation.holder) ?? idOf(proof.verificationMethod)?.split('#')[0];
}

/** Whether the presentation's holder is the credential's subject. */
function holderBound(presentation: Json, credential: Json): boolean {
  const holder = holderOf(presentation);
  return holder !== undefined && idOf(credential.credentialSubject) === holder;
}

/**
 * A finding that leaves the holder's proof for this request standing: the presentation's proof, its
 * challenge and domain, the credential's proof and issuer all passed; only its validity or status failed.
 */
export function afterBinding(problem: CheckProblem): boolean {
  if (problem.check !== 'credential') return false;
  return (
    problem.type === checkProblemTypes.validity ||
    problem.type === checkProblemTypes.status ||
    problem.type === checkProblemTypes.statusRetrieval
  );
}

/**
 * The failure code of the verifier's first finding: by its `check`, then by its problem type. Where
 * one type covers several codes (expired or not yet valid, revoked or suspended, an issuer untrusted
 * or unresolved) the finding's wording decides; ldp-presentation-verifier.spec.ts words each finding
 * with the functions that make it, so that a change of wording fails there.
 */
export function failureCodeOf(problem: CheckProblem): PresentationFailureCode {
  const { detail } = problem;
  const byCheck: Partial<Record<CheckProblem['check'], PresentationFailureCode>> = {
    holder: 'key_binding_invalid',
    challenge: 'nonce_mismatch',
    domain: 'audience_mismatch',
  };
  if (problem.check !== 'credential') return byCheck[problem.check] ?? 'signature_invalid';
  switch (problem.type) {
    case checkProblemTypes.validity:
      return /: validity: expired/.test(detail) ? 'credential_expired' : 'credential_not_yet_valid';
    case checkProblemTypes.status:
      return detail.endsWith(statusSetDetail('revocation'))
        ? 'credential_revoked'
        : 'credential_suspended';
    case checkProblemTypes.statusRetrieval:
      return 'status_unavailable';
    case checkProblemTypes.issuer:
      if (/: issuer: untrusted issuer/.test(detail)) return 'issuer_not_trusted';
      return /Cannot resolve|is not a DID( method)? this service resolves/.test(detail)
        ? 'issuer_unresolved'
        : 'signature_invalid';
    default:
      return 'signature_invalid';
  }
}
