import { Injectable } from '@nestjs/common';
import { anchorsFrom, TrustAnchorPolicy } from '../../trust-anchors/trust-anchor-policy.js';
import { trustedIssuersFrom } from '../../trusted-issuers/trusted-issuer-policy.js';
import { LdpPresentationVerifier } from './ldp-presentation-verifier.js';
import { MdocPresentationVerifier } from '../mdoc/mdoc-presentation.js';
import { SdJwtVcVerifier } from '../sd-jwt/sd-jwt-vc-verifier.js';
import { TenantTrustRead } from './tenant-trust.js';
import {
  type PresentationCheck,
  type PresentationExpectation,
} from '../wallet-presentation.types.js';

export type {
  PresentationCheck,
  PresentationExpectation,
  PresentationFailureCode,
  VerifiedPresentation,
} from '../wallet-presentation.types.js';

/**
 * Verifies what a wallet presents to a tenant's OpenID4VP request (docs/oid4vp.md): SD-JWT VCs with key
 * binding and Token Status Lists, mdocs (DeviceResponse, ISO/IEC 18013-5) against the session
 * transcript the caller gives, and Data Integrity presentations with our existing verifier. A
 * presentation that does not count is an answer (a code and a reason), never an exception.
 */
@Injectable()
export class WalletPresentationsService {
  constructor(
    private readonly trust: TenantTrustRead,
    private readonly anchors: TrustAnchorPolicy,
    private readonly sdJwtVcs: SdJwtVcVerifier,
    private readonly ldp: LdpPresentationVerifier,
    private readonly mdocs: MdocPresentationVerifier,
  ) {}

  async verify(expectation: PresentationExpectation): Promise<PresentationCheck> {
    if (expectation.format === 'ldp_vc') return this.ldp.verify(expectation);
    const { tenantId, trustedIssuers, tenantTrust } = expectation;
    // Read with the answer's request when its caller did; else the anchors only when a chain needs them.
    const anchors = () =>
      tenantTrust === undefined
        ? this.anchors.anchorsFor(tenantId)
        : Promise.resolve(anchorsFrom(tenantTrust.anchors));
    // An mdoc names no issuer identifier: the tenant's IACAs alone decide (docs/mdoc.md).
    if (expectation.format === 'mso_mdoc') return this.mdocs.verify(expectation, anchors);
    // The request's own list: reading the tenant's with its anchors would be a round trip more than
    // the anchors alone, which a credential without x5c never needs.
    if (trustedIssuers !== undefined)
      return this.sdJwtVcs.verify(expectation, new Set(trustedIssuers), anchors);
    // The tenant's list with its anchors, one round trip at most (docs/performance.md); undefined:
    // any issuer whose key resolves, any chain that holds together.
    const stored = tenantTrust ?? (await this.trust.of(tenantId));
    return this.sdJwtVcs.verify(expectation, trustedIssuersFrom(stored.issuers), () =>
      Promise.resolve(anchorsFrom(stored.anchors)),
    );
  }
}
