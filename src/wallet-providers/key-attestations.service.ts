import { Injectable } from '@nestjs/common';
import { jwkThumbprint, publicJwkOf, type PublicJwk } from '../jose/jwk.js';
import { AttestationRefusal, headerOf, verifiedByProvider } from './attested-jwt.js';
import { WalletProviderCertificates } from './wallet-provider-certificates.js';
import { walletProviderLimits } from './wallet-provider-limits.js';

export const keyAttestationTyp = 'key-attestation+jwt';

/** What a credential configuration requires of key attestations (OpenID4VCI 1.0 Appendix D.1). */
export interface KeyAttestationsRequired {
  key_storage?: string[];
  user_authentication?: string[];
}

export interface KeyAttestationCheck {
  /** The key the JWT proof was signed with: it must be one of `attested_keys`. */
  provedKey: PublicJwk;
  /** The c_nonce of the proof: the attestation's `nonce`, when it has one, must be it. */
  cNonce: string;
  required: KeyAttestationsRequired;
  now: number;
}

/** Keys one attestation may attest: a batch is two (docs/oid4vci.md); room for a wallet's own. */
const maxAttestedKeys = 10;

/**
 * Key attestations (OpenID4VCI 1.0 Appendix D) in a JWT proof's `key_attestation` header: a
 * `key-attestation+jwt` signed through an `x5c` chain to one of the tenant's wallet providers (HAIP 1.0
 * §4.5), attesting the proof's key, with the storage and user authentication the configuration asks.
 */
@Injectable()
export class KeyAttestationsService {
  constructor(private readonly certificates: WalletProviderCertificates) {}

  /** Why the attestation does not do (a phrase), or undefined when it does. */
  async problem(
    tenantId: string,
    attestation: unknown,
    check: KeyAttestationCheck,
  ): Promise<string | undefined> {
    if (typeof attestation !== 'string') return 'is missing (key_attestation in the proof header)';
    try {
      const header = headerOf(
        attestation,
        keyAttestationTyp,
        walletProviderLimits.attestationChars,
      );
      const providers = await this.certificates.of(tenantId);
      const claims = verifiedByProvider(attestation, header, providers, check.now, [
        'iat',
        'attested_keys',
      ]);
      const keys = claims.attested_keys;
      if (!Array.isArray(keys) || keys.length === 0 || keys.length > maxAttestedKeys)
        return `has no attested_keys array of 1 to ${maxAttestedKeys} keys`;
      const wanted = jwkThumbprint(check.provedKey);
      const attested = keys.some((key) => {
        const jwk = publicJwkOf(key);
        return typeof jwk !== 'string' && jwkThumbprint(jwk) === wanted;
      });
      if (!attested) return 'does not attest the key that signed the proof';
      if (claims.nonce !== undefined && claims.nonce !== check.cNonce)
        return 'has a nonce other than the c_nonce';
      return (
        levelProblem('key_storage', claims.key_storage, check.required.key_storage) ??
        levelProblem(
          'user_authentication',
          claims.user_authentication,
          check.required.user_authentication,
        )
      );
    } catch (error) {
      if (error instanceof AttestationRefusal) return error.message;
      throw error;
    }
  }
}

/** One of the required attack-potential levels (ISO 18045 names, Appendix D.2) must be claimed. */
function levelProblem(
  claim: string,
  claimed: unknown,
  required: string[] | undefined,
): string | undefined {
  if (required === undefined || required.length === 0) return undefined;
  const levels = Array.isArray(claimed) ? claimed : [];
  if (levels.some((level) => required.includes(level as string))) return undefined;
  return `claims no ${claim} of ${required.join(', ')}`;
}
