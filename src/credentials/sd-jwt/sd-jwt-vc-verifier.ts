import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
  type PresentationFailureCode,
  type VerifiedPresentation,
  type X5cChainSummary,
} from '../wallet-presentation.types.js';
import { CredentialIssuerKeys } from './credential-issuer-keys.js';
import { type JwsAlgorithm } from '../../jose/algorithms.js';
import { jwkThumbprint, type PublicJwk } from '../../jose/jwk.js';
import { type Certificate } from '../../x509/chain.js';
import { jwsVerifies } from '../../jose/jws.js';
import { algProblem, publicKeyFor, shown } from './jws.js';
import { keyBindingProblem } from './key-binding.js';
import { RemoteTokenStatusLists, statusVerdict } from './remote-token-status-lists.js';
import { disclosedPayload, parseSdJwt, type ParsedSdJwt } from './sd-jwt-presentation.js';
import { x5cIssuerKey } from './x5c-issuer-key.js';

type Json = Record<string, unknown>;
type Failure = Extract<PresentationCheck, { verified: false }>;

/** The tenant's trust anchors, asked for only for a credential with `x5c`; undefined: none. */
export type AnchorsReader = () => Promise<readonly Certificate[] | undefined>;

/** How far apart the issuer's clock and ours may be for `exp` and `nbf`. */
export const validitySkewSeconds = 60;

const fail = (code: PresentationFailureCode, reason: string): Failure => ({
  verified: false,
  code,
  reason,
});

/**
 * One `dc+sd-jwt` presentation (SD-JWT VC draft, RFC 9901, OpenID4VP 1.0 appendix B.3), check by
 * check, stopping at the first that fails: its form and limits, the issuer's trust and signature, the
 * disclosures, the key binding, the validity period, the status. Reasons name the check, never a
 * claim's value or a key.
 */
@Injectable()
export class SdJwtVcVerifier {
  private readonly logger = new Logger(SdJwtVcVerifier.name);

  constructor(
    private readonly keys: CredentialIssuerKeys,
    private readonly statusLists: RemoteTokenStatusLists,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The check's answer for any input: never a rejection, whatever the wallet sent. `anchors`
   * answers the tenant's X.509 trust anchors an `x5c` chain must end at, asked for only for a
   * credential that has one; undefined: any chain that holds together.
   */
  async verify(
    expectation: PresentationExpectation,
    trusted: ReadonlySet<string> | undefined,
    anchors: AnchorsReader = () => Promise.resolve(undefined),
  ): Promise<PresentationCheck> {
    try {
      return await this.check(expectation, trusted, anchors);
    } catch (error) {
      // A check that threw is a defect of ours; its message may quote the presentation, so not logged.
      this.logger.error({
        event: 'sd-jwt-vc.check-threw',
        error: error instanceof Error ? error.name : typeof error,
      });
      return fail('presentation_malformed', 'the presentation could not be checked');
    }
  }

  private async check(
    expectation: PresentationExpectation,
    trusted: ReadonlySet<string> | undefined,
    anchors: AnchorsReader,
  ): Promise<PresentationCheck> {
    const parsed = parseSdJwt(expectation.presentation);
    if ('code' in parsed) return fail(parsed.code, parsed.reason);
    const { header, payload } = parsed.issuer;
    if (header.typ !== 'dc+sd-jwt' && header.typ !== 'vc+sd-jwt') {
      return fail('presentation_malformed', "the issuer-signed JWT's typ is not dc+sd-jwt");
    }
    const { iss, vct } = payload;
    if (typeof iss !== 'string' || iss === '' || typeof vct !== 'string') {
      return fail('presentation_malformed', 'the credential has no string iss and vct');
    }
    if (trusted !== undefined && !trusted.has(iss)) {
      return fail(
        'issuer_not_trusted',
        `the issuer ${shown(iss)} is not in the trusted issuers list`,
      );
    }
    const unfit = algProblem(header.alg);
    if (unfit !== undefined) return fail('signature_invalid', `the credential ${unfit}`);
    const issuerKey = await this.issuerKey(iss, header, anchors, expectation.signal);
    if ('code' in issuerKey) return issuerKey;
    const { key, chain } = issuerKey;
    if (!jwsVerifies(parsed.issuerJwt, key, header.alg as JwsAlgorithm)) {
      return fail(
        'signature_invalid',
        "the credential's signature does not verify with the issuer's key",
      );
    }
    const disclosed = await disclosedPayload(parsed);
    if ('code' in disclosed) return fail(disclosed.code, disclosed.reason);
    const binding = this.holderBinding(parsed, payload, expectation);
    if ('verified' in binding) return binding;
    // From here on a failure is the holder's, for this request, once its KB-JWT verified.
    const after = (failure: Failure): Failure =>
      binding.thumbprint === null ? failure : { ...failure, bound: true };
    const now = this.clock() / 1000;
    const validity = validityFailure(payload, now);
    if (validity !== undefined) return after(validity);
    const status = await this.status(payload, iss, expectation.signal);
    if (typeof status !== 'string') return after(status);
    // The holder's key is the binding's, not a claim: DCQL paths see what the issuer said of the subject.
    const claims: Json = { ...disclosed.claims };
    delete claims.cnf;
    const presentation: VerifiedPresentation = {
      format: 'dc+sd-jwt',
      issuer: iss,
      vct,
      claims,
      holderKeyThumbprint: binding.thumbprint,
      holderBinding: binding.thumbprint !== null,
      status,
      ...(chain === undefined ? {} : { x5c: chain }),
    };
    return { verified: true, presentation };
  }

  /** The leaf's key of a valid `x5c` chain that names `iss`, else the key `iss` and `kid` resolve to. */
  private async issuerKey(
    iss: string,
    header: Json,
    anchors: AnchorsReader,
    deadline: AbortSignal,
  ): Promise<{ key: PublicJwk; chain?: X5cChainSummary } | Failure> {
    if (header.x5c !== undefined) {
      const fromChain = x5cIssuerKey(iss, header, await anchors(), new Date(this.clock()));
      return 'code' in fromChain ? fail(fromChain.code, fromChain.reason) : fromChain;
    }
    const key = await this.keys.keyFor(iss, header, deadline);
    if (typeof key === 'string') {
      return fail('issuer_unresolved', `the issuer's key could not be found: ${key}`);
    }
    return { key };
  }

  /** The holder key's thumbprint once the KB-JWT binds it, null without `cnf`; or the failure. */
  private holderBinding(
    parsed: ParsedSdJwt,
    payload: Json,
    expectation: PresentationExpectation,
  ): { thumbprint: string | null } | Failure {
    const { cnf } = payload;
    if (cnf === undefined) {
      return parsed.kbJwt === undefined
        ? { thumbprint: null }
        : fail(
            'key_binding_invalid',
            'a key binding JWT came with a credential that has no cnf key',
          );
    }
    const jwk = (cnf as Json | null)?.jwk;
    const holderKey = publicKeyFor(
      jwk,
      (jwk as Json | undefined)?.kty === 'OKP' ? 'EdDSA' : 'ES256',
    );
    if (typeof holderKey === 'string') {
      return fail('key_binding_invalid', "the credential's cnf has no P-256 or Ed25519 jwk");
    }
    if (parsed.kbJwt === undefined) {
      return fail(
        'key_binding_missing',
        'the credential is bound to a holder key, and no key binding JWT came with it',
      );
    }
    const problem = keyBindingProblem(parsed.kbJwt, holderKey, {
      nonce: expectation.nonce,
      clientId: expectation.clientId,
      now: this.clock() / 1000,
      withoutKb: parsed.withoutKb,
    });
    if (problem !== undefined) return fail(problem.code, problem.reason);
    return { thumbprint: jwkThumbprint(holderKey) };
  }

  /** `none` without a status, the status list's word, or the failure. */
  private async status(
    payload: Json,
    issuer: string,
    deadline: AbortSignal,
  ): Promise<VerifiedPresentation['status'] | Failure> {
    if (payload.status === undefined) return 'none';
    const reference = (payload.status as Json | null)?.status_list;
    if (reference === undefined) {
      return fail(
        'status_unavailable',
        'the credential names a status mechanism other than status_list',
      );
    }
    const verdict = statusVerdict(await this.statusLists.statusOf(reference, issuer, deadline));
    return verdict === 'valid' ? verdict : fail(verdict.code, verdict.reason);
  }
}

/** `exp` and `nbf`, allowing `validitySkewSeconds`; a present one that is not a number is malformed. */
function validityFailure(payload: Json, now: number): Failure | undefined {
  const { exp, nbf } = payload;
  if (
    (exp !== undefined && typeof exp !== 'number') ||
    (nbf !== undefined && typeof nbf !== 'number')
  ) {
    return fail('presentation_malformed', "the credential's exp or nbf is not a number");
  }
  if (typeof exp === 'number' && exp + validitySkewSeconds <= now) {
    return fail('credential_expired', `the credential expired at ${dateOf(exp)}`);
  }
  if (typeof nbf === 'number' && nbf - validitySkewSeconds > now) {
    return fail('credential_not_yet_valid', `the credential is not valid before ${dateOf(nbf)}`);
  }
  return undefined;
}

function dateOf(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString();
}
