import { batchSize } from '../issuer-metadata.js';
import { invalidCredentialRequest, invalidProof, OAuthError } from '../../common/oauth-error.js';

/** The proofs of a credential request (§8.2), checked for shape; the configuration must be the offer's. */
export function requestedProofs(body: Record<string, unknown>, configurationId: string): string[] {
  // The token's credential_identifiers (§6.2) are the configuration's id: one credential per offer.
  if (body.credential_identifier !== undefined && body.credential_configuration_id !== undefined)
    throw invalidCredentialRequest(
      'credential_identifier and credential_configuration_id exclude each other.',
    );
  if (body.credential_identifier !== undefined && body.credential_identifier !== configurationId)
    throw new OAuthError(
      400,
      'unknown_credential_identifier',
      'The credential is not the token’s.',
    );
  const requested = body.credential_identifier ?? body.credential_configuration_id;
  if (typeof requested !== 'string')
    throw invalidCredentialRequest('credential_configuration_id is required.');
  if (requested !== configurationId)
    throw new OAuthError(
      400,
      'unknown_credential_configuration',
      'The credential configuration is not the offer’s.',
    );
  if (body.credential_response_encryption !== undefined)
    throw new OAuthError(
      400,
      'invalid_encryption_parameters',
      'Credential response encryption is not supported.',
    );
  if (body.proof !== undefined) return draftProof(body);
  const proofs = body.proofs;
  if (proofs === undefined) throw invalidProof('proofs is required.');
  if (typeof proofs !== 'object' || proofs === null || Array.isArray(proofs))
    throw invalidProof('proofs must be an object.');
  const types = Object.keys(proofs);
  if (types.length !== 1 || types[0] !== 'jwt')
    throw invalidProof('proofs must hold jwt proofs only.');
  const jwts = (proofs as { jwt: unknown }).jwt;
  if (!Array.isArray(jwts) || jwts.length === 0)
    throw invalidProof('proofs.jwt must be a non-empty array.');
  if (jwts.length > batchSize)
    throw invalidCredentialRequest(`At most ${batchSize} credentials per request (batch_size).`);
  if (!jwts.every((jwt) => typeof jwt === 'string'))
    throw invalidProof('proofs.jwt must hold JWTs as strings.');
  return jwts;
}

/**
 * The one `proof` of the drafts before 1.0 (draft 15 §8.2, `{proof_type: "jwt", jwt}`), which wallets
 * built on them still send (@sphereon/oid4vci-client 0.20): taken as `proofs: {jwt: [jwt]}`.
 */
function draftProof(body: Record<string, unknown>): string[] {
  if (body.proofs !== undefined)
    throw invalidCredentialRequest('Send proofs or, as the drafts did, proof: not both.');
  const proof = body.proof as { proof_type?: unknown; jwt?: unknown } | null;
  if (typeof proof !== 'object' || proof === null || proof.proof_type !== 'jwt')
    throw invalidProof('proof must be {proof_type: "jwt", jwt}.');
  if (typeof proof.jwt !== 'string') throw invalidProof('proof.jwt must be a JWT as a string.');
  return [proof.jwt];
}
