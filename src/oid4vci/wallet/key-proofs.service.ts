import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { invalidProof } from '../../common/oauth-error.js';
import { type HolderKey } from '../../credentials/issuing/holder-issuance.service.js';
import {
  type KeyAttestationsRequired,
  KeyAttestationsService,
} from '../../wallet-providers/key-attestations.service.js';
import { ProofRefusal, verifyKeyProof } from './key-proofs.js';

export interface KeyProofContext {
  tenantId: string;
  /** The credential issuer identifier: the proofs' `aud`. */
  issuer: string;
  /** The configuration's key attestation requirement (Appendix D.1); null: none. */
  keyAttestationsRequired: KeyAttestationsRequired | null;
  /** Whether keys may be named by DID URLs (ldp_vc). */
  didAllowed: boolean;
}

/**
 * The JWT proofs of a credential request (OpenID4VCI 1.0 Appendix F.1): each verified, one nonce for
 * all, and each with a key attestation by a trusted wallet provider when the configuration requires
 * it (Appendix D.1; the requirement read with the token's offer, docs/wallet-providers.md).
 */
@Injectable()
export class KeyProofsService {
  constructor(
    private readonly keyAttestations: KeyAttestationsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async verify(
    jwts: string[],
    context: KeyProofContext,
  ): Promise<{ holders: HolderKey[]; nonce: string }> {
    const proved = [];
    for (const [index, jwt] of jwts.entries()) {
      try {
        proved.push(
          verifyKeyProof(jwt, {
            issuer: context.issuer,
            now: this.clock(),
            didAllowed: context.didAllowed,
          }),
        );
      } catch (error) {
        if (!(error instanceof ProofRefusal)) throw error;
        throw invalidProof(`The proof ${index} ${error.message}.`);
      }
    }
    const nonces = new Set(proved.map((proof) => proof.nonce));
    if (nonces.size !== 1) throw invalidProof('The proofs of one request must carry one nonce.');
    const [nonce] = nonces;
    const required = context.keyAttestationsRequired;
    if (required !== null) {
      for (const [index, proof] of proved.entries()) {
        const problem = await this.keyAttestations.problem(context.tenantId, proof.keyAttestation, {
          provedKey: proof.jwk,
          cNonce: nonce,
          required,
          now: this.clock(),
        });
        if (problem !== undefined)
          throw invalidProof(`The proof ${index}'s key attestation ${problem}.`);
      }
    }
    const holders = proved.map(({ jwk, did }) => (did === undefined ? { jwk } : { jwk, did }));
    return { holders, nonce };
  }
}
