import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { jwkThumbprint } from '../../jose/jwk.js';
import { MdocRefusal, type MdocRefusalCode, verifyDeviceResponse } from '../../mdoc/verify-mdoc.js';
import { type Certificate, keyIdentifiers, parseCertificate } from '../../x509/chain.js';
import { type AnchorsReader } from '../sd-jwt/sd-jwt-vc-verifier.js';
import { RemoteTokenStatusLists, statusVerdict } from '../sd-jwt/remote-token-status-lists.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
  type PresentationFailureCode,
  type VerifiedPresentation,
  type X5cChainSummary,
} from '../wallet-presentation.types.js';

type Failure = Extract<PresentationCheck, { verified: false }>;

/** The toolbox's refusal as the verifier's failure code (docs/oid4vp.md keeps the list). */
const failureCodes: Record<MdocRefusalCode, PresentationFailureCode> = {
  malformed: 'presentation_malformed',
  issuer_signature: 'signature_invalid',
  certificate_chain: 'certificate_chain_invalid',
  not_trusted: 'issuer_not_trusted',
  digest: 'disclosure_invalid',
  device_signature: 'device_signature_invalid',
  expired: 'credential_expired',
  not_yet_valid: 'credential_not_yet_valid',
  doctype: 'doctype_mismatch',
};

const fail = (code: PresentationFailureCode, reason: string): Failure => ({
  verified: false,
  code,
  reason,
});

/**
 * One `mso_mdoc` presentation (OpenID4VP 1.0 appendix B.2, ISO/IEC 18013-5 §9.1): the base64url of a
 * `DeviceResponse` of one document, verified against the session transcript the caller chose for its
 * flow (B.2.6.1 redirects, B.2.6.2 the DC API) and the tenant's trust anchors (its IACAs), then its
 * Token Status List. The outcome holds the presented elements only, by namespace (docs/mdoc.md).
 */
@Injectable()
export class MdocPresentationVerifier {
  private readonly logger = new Logger(MdocPresentationVerifier.name);

  constructor(
    private readonly statusLists: RemoteTokenStatusLists,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The check's answer for any input: never a rejection, whatever the wallet sent. */
  async verify(
    expectation: PresentationExpectation,
    anchors: AnchorsReader,
  ): Promise<PresentationCheck> {
    try {
      return await this.check(expectation, anchors);
    } catch (error) {
      if (error instanceof MdocRefusal) return fail(failureCodes[error.code], error.reason);
      // A check that threw is a defect of ours; its message may quote the presentation, so not logged.
      this.logger.error({
        event: 'mdoc.check-threw',
        error: error instanceof Error ? error.name : typeof error,
      });
      return fail('presentation_malformed', 'the presentation could not be checked');
    }
  }

  private async check(
    expectation: PresentationExpectation,
    anchors: AnchorsReader,
  ): Promise<PresentationCheck> {
    const { presentation, sessionTranscript, doctype, signal } = expectation;
    if (sessionTranscript === undefined) throw new Error('An mdoc needs a session transcript');
    if (typeof presentation !== 'string')
      return fail('presentation_malformed', 'the presentation is not a base64url DeviceResponse');
    // An mdoc's x5chain usually stops below its IACA: without anchors nothing vouches for it.
    const trusted = await anchors();
    if (trusted === undefined || trusted.length === 0) {
      return fail(
        'issuer_not_trusted',
        'the verifier has no trust anchors: an mdoc is accepted only through an IACA certificate it trusts',
      );
    }
    // The toolbox bounds the DeviceResponse (its size, documents, elements) before decoding it.
    const documents = await verifyDeviceResponse({
      deviceResponse: presentation,
      sessionTranscript,
      ...(doctype === undefined ? {} : { expectedDoctype: doctype }),
      anchors: trusted.map((anchor) => anchor.der.toString('base64')),
      now: new Date(this.clock()),
    });
    if (documents.length !== 1) {
      return fail(
        'presentation_malformed',
        `the DeviceResponse holds ${documents.length} documents: a presentation is one mdoc`,
      );
    }
    const [mdoc] = documents;
    // From here on the holder proved it answers this request: its device signed this transcript.
    const status = await this.status(mdoc.status, signal);
    if (typeof status !== 'string') return { ...status, bound: true };
    const chain = chainSummary(mdoc.issuerChain, trusted);
    const verified: VerifiedPresentation = {
      format: 'mso_mdoc',
      issuer: chain.leafSubject,
      doctype: mdoc.doctype,
      claims: mdoc.elements,
      holderKeyThumbprint: jwkThumbprint(mdoc.deviceKey),
      holderBinding: true,
      status,
      x5c: chain,
    };
    return { verified: true, presentation: verified };
  }

  /** `none` without a status, the Token Status List's word, or the failure. */
  private async status(
    reference: { idx: number; uri: string } | undefined,
    deadline: AbortSignal,
  ): Promise<VerifiedPresentation['status'] | Failure> {
    if (reference === undefined) return 'none';
    // An mdoc names no JWT issuer: its MSO, signed through the IACA, vouches for the URI.
    const verdict = statusVerdict(await this.statusLists.statusOf(reference, undefined, deadline));
    return verdict === 'valid' ? verdict : fail(verdict.code, verdict.reason);
  }
}

/**
 * The verified chain (leaf first) as the outcome names it: the document signer, the anchor it ended
 * at (the last certificate itself, or the anchor that issued it), the key identifiers DCQL `aki` reads.
 */
function chainSummary(
  issuerChain: readonly string[],
  anchors: readonly Certificate[],
): X5cChainSummary {
  const chain = issuerChain.flatMap((base64) => {
    const certificate = parseCertificate(base64);
    return typeof certificate === 'string' ? [] : [certificate];
  });
  const last = chain[chain.length - 1];
  const anchor =
    anchors.find((candidate) => candidate.der.equals(last.der)) ??
    anchors.find((candidate) => candidate.subject === last.issuer);
  const identifiers = [...chain, ...(anchor === undefined ? [] : [anchor])].flatMap((each) => {
    const { subjectKeyIdentifier, authorityKeyIdentifier } = keyIdentifiers(each);
    return [subjectKeyIdentifier, authorityKeyIdentifier].filter((id) => id !== undefined);
  });
  return {
    leafSubject: chain[0].subject,
    anchorSubject: anchor?.subject ?? null,
    keyIdentifiers: [...new Set(identifiers)],
  };
}
