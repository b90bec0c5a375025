import { Injectable } from '@nestjs/common';
import { type JWTPayload } from 'jose';
import { OAuthError } from '../common/oauth-error.js';
import { issuedAtProblem } from '../jose/issued-at.js';
import { jwkThumbprint } from '../jose/jwk.js';
import {
  AttestationRefusal,
  headerOf,
  keyOf,
  verifiedByProvider,
  verifiedWith,
} from './attested-jwt.js';
import { SpentProofs } from './spent-proofs.js';
import { settingInForce } from './wallet-attestation-policy.entity.js';
import { WalletProviderCertificates } from './wallet-provider-certificates.js';
import { walletProviderLimits } from './wallet-provider-limits.js';
import { WalletProviderRepository } from './wallet-provider.repository.js';

/** The header names of OAuth 2.0 Attestation-Based Client Authentication (draft -07 §6.1). */
export const attestationHeader = 'oauth-client-attestation';
export const attestationPopHeader = 'oauth-client-attestation-pop';
export const attestationTyp = 'oauth-client-attestation+jwt';
export const attestationPopTyp = 'oauth-client-attestation-pop+jwt';

export interface ClientAuthenticationInput {
  /** The `OAuth-Client-Attestation` header. */
  attestation?: string;
  /** The `OAuth-Client-Attestation-PoP` header. */
  pop?: string;
  /** The request's `client_id`, when it names one. */
  clientId?: string;
  /** The tenant's credential issuer identifier: the PoP's `aud`. */
  audience: string;
  /** Milliseconds since the epoch. */
  now: number;
}

export type ClientAuthentication =
  { clientId: string; attested: true } | { attested: false; clientId?: string };

const refuse = (reason: string) => new OAuthError(401, 'invalid_client', reason);

/**
 * Wallet attestations at a tenant's authorization server (OAuth 2.0 Attestation-Based Client
 * Authentication; OpenID4VCI 1.0 Appendix E; HAIP 1.0 §4.4): the attestation signed through an `x5c`
 * chain to one of the tenant's wallet providers, its PoP signed by the key in `cnf.jwk`, for this
 * issuer, fresh and used once; required or optional as the tenant's policy says (docs/wallet-providers.md).
 */
@Injectable()
export class ClientAttestationsService {
  constructor(
    private readonly providers: WalletProviderRepository,
    private readonly certificates: WalletProviderCertificates,
    private readonly spent: SpentProofs,
  ) {}

  async authenticate(
    tenantId: string,
    input: ClientAuthenticationInput,
  ): Promise<ClientAuthentication> {
    const { attestation, pop } = input;
    if (attestation === undefined && pop === undefined) {
      const { setting, listed } = await this.providers.policyOf(tenantId);
      if (settingInForce(setting, listed) === 'required')
        throw refuse('This issuer requires a wallet attestation (OAuth-Client-Attestation).');
      return input.clientId === undefined
        ? { attested: false }
        : { attested: false, clientId: input.clientId };
    }
    if (attestation === undefined || pop === undefined)
      throw refuse('Send both OAuth-Client-Attestation and OAuth-Client-Attestation-PoP.');
    try {
      const clientId = await this.verify(tenantId, attestation, pop, input);
      return { clientId, attested: true };
    } catch (error) {
      if (error instanceof AttestationRefusal) throw refuse(error.message);
      throw error;
    }
  }

  /** The attested `client_id`, or an AttestationRefusal naming what failed. */
  private async verify(
    tenantId: string,
    attestation: string,
    pop: string,
    input: ClientAuthenticationInput,
  ): Promise<string> {
    const { now, audience } = input;
    // Both headers are bounded and typed before any certificate is parsed or any key imported.
    const header = await as('client attestation', () =>
      headerOf(attestation, attestationTyp, walletProviderLimits.attestationChars),
    );
    const popHeader = await as('client attestation PoP', () =>
      headerOf(pop, attestationPopTyp, walletProviderLimits.popChars),
    );
    const providers = await this.certificates.of(tenantId);
    const claims = await as('client attestation', () =>
      verifiedByProvider(attestation, header, providers, now, ['iss', 'sub', 'exp', 'cnf']),
    );
    const sub: unknown = claims.sub;
    if (typeof sub !== 'string' || sub === '' || sub.length > walletProviderLimits.idChars)
      throw new AttestationRefusal(
        `The client attestation must have a sub (the client_id) of 1 to ${walletProviderLimits.idChars} characters.`,
      );
    const cnf = claims.cnf as { jwk?: unknown } | undefined;
    if (typeof cnf !== 'object' || cnf === null || cnf.jwk === undefined)
      throw new AttestationRefusal('The client attestation has no cnf.jwk.');
    const key = await as('client attestation', () => keyOf(cnf.jwk, popHeader.alg, 'cnf.jwk'));
    const proof = await as('client attestation PoP (by the key in cnf.jwk)', () =>
      verifiedWith(pop, key, popHeader, now, { audience, requiredClaims: ['aud', 'jti', 'iat'] }),
    );
    popClaimsCheck(proof, sub, now);
    if (input.clientId !== undefined && input.clientId !== sub)
      throw new AttestationRefusal('client_id is not the sub of the client attestation.');
    const spent = await this.spent.spend({
      tenantId,
      kind: 'client-attestation-pop',
      keyThumbprint: jwkThumbprint(key),
      jti: proof.jti!,
      issuedAt: proof.iat!,
    });
    if (!spent)
      throw new AttestationRefusal('The jti of the client attestation PoP was used before.');
    return sub;
  }
}

/** `run`'s refusal with the part of the request it concerns named first. */
async function as<T>(part: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AttestationRefusal)
      throw new AttestationRefusal(`The ${part} ${error.message}.`);
    throw error;
  }
}

/** The PoP's own claims: a fresh `iat`, a bounded `jti`, and `iss`, when sent, the client (draft -05 had it). */
function popClaimsCheck(proof: JWTPayload, sub: string, now: number): void {
  if (issuedAtProblem(proof.iat, Math.floor(now / 1000)) !== undefined)
    throw new AttestationRefusal('The client attestation PoP has an iat too far from now.');
  if (typeof proof.jti !== 'string' || proof.jti === '' || proof.jti.length > 256)
    throw new AttestationRefusal('The client attestation PoP must have a jti.');
  if (proof.iss !== undefined && proof.iss !== sub)
    throw new AttestationRefusal(
      'The iss of the client attestation PoP is not the sub of the attestation.',
    );
}
