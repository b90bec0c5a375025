/** What a wallet presents at the PAR and token endpoints (OAuth 2.0 Attestation-Based Client Authentication). */
export interface ClientAuthenticationRequest {
  /** The `OAuth-Client-Attestation` header. */
  attestation?: string;
  /** The `OAuth-Client-Attestation-PoP` header. */
  pop?: string;
  /** The `client_id` parameter. */
  clientId?: string;
  /** The endpoint's issuer, the PoP's audience. */
  audience: string;
  now: number;
}

export type AuthenticatedClient =
  { clientId: string; attested: true } | { attested: false; clientId?: string };

/**
 * How a wallet is authenticated (HAIP 1.0 §4.3): the seam to the wallet attestation verifier; throws
 * `invalid_client` for an attestation it refuses.
 */
export interface ClientAuthentication {
  authenticate(
    tenantId: string,
    request: ClientAuthenticationRequest,
  ): Promise<AuthenticatedClient>;
}

export const CLIENT_AUTHENTICATION = Symbol('CLIENT_AUTHENTICATION');
