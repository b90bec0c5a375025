import { type JoseSigningKey } from '../jose/algorithms.js';
import { signCompactJws, signingHeader } from '../jose/jws.js';
import { type CredentialConfigurationDto } from './dto/credential-configuration-answer.dto.js';

/** Wallets may ask for this many credentials of one configuration in one request (§12.2.4). */
export const batchSize = 2;
const proofSigningAlgorithms = ['ES256', 'EdDSA'];

/** The tenant as the metadata presents it. */
export interface IssuerTenant {
  id: string;
  label: string;
  imageUrl: string | null;
}

/** Credential Issuer Metadata, OpenID4VCI 1.0 §12.2.4, with 1.0's `credential_metadata` per configuration. */
export function credentialIssuerMetadata(
  issuer: string,
  tenant: IssuerTenant,
  configurations: CredentialConfigurationDto[],
): Record<string, unknown> {
  return {
    credential_issuer: issuer,
    credential_endpoint: `${issuer}/credential`,
    nonce_endpoint: `${issuer}/nonce`,
    notification_endpoint: `${issuer}/notification`,
    batch_credential_issuance: { batch_size: batchSize },
    display: [
      {
        name: tenant.label,
        ...(tenant.imageUrl === null ? {} : { logo: { uri: tenant.imageUrl } }),
      },
    ],
    credential_configurations_supported: Object.fromEntries(
      configurations.map((configuration) => [configuration.id, supported(configuration)]),
    ),
  };
}

/**
 * One entry of `credential_configurations_supported` (§12.2.4 and Appendix A); its `scope` is the
 * configuration's id, already a scope token (RFC 6749 §3.3), by which a wallet may ask for it (§5.1.2).
 */
function supported(configuration: CredentialConfigurationDto): Record<string, unknown> {
  return {
    format: configuration.format,
    scope: configuration.id,
    ...formatMembers(configuration),
    proof_types_supported: {
      jwt: {
        // The mdoc's device key is a P-256 key (ISO/IEC 18013-5 §9.1.5.2, HAIP 1.0 §5.3).
        proof_signing_alg_values_supported:
          configuration.format === 'mso_mdoc' ? ['ES256'] : proofSigningAlgorithms,
        // Appendix D.1: every proof then carries a key attestation.
        ...(configuration.keyAttestationsRequired === null
          ? {}
          : { key_attestations_required: configuration.keyAttestationsRequired }),
      },
    },
    credential_metadata: { display: configuration.display, claims: configuration.claims },
  };
}

/** What each format says of itself (OpenID4VCI 1.0 appendix A.1.1, A.2.2, A.3.2). */
function formatMembers(configuration: CredentialConfigurationDto): Record<string, unknown> {
  switch (configuration.format) {
    case 'dc+sd-jwt':
      return {
        vct: configuration.vct,
        cryptographic_binding_methods_supported: ['jwk'],
        credential_signing_alg_values_supported: [configuration.signingAlgorithm],
      };
    case 'mso_mdoc':
      // COSE algorithm identifiers for mdocs: -7 is ES256 (RFC 9053 §2.1).
      return {
        doctype: configuration.doctype,
        cryptographic_binding_methods_supported: ['cose_key'],
        credential_signing_alg_values_supported: [-7],
      };
    case 'ldp_vc':
      return {
        credential_definition: configuration.credentialDefinition,
        cryptographic_binding_methods_supported: ['jwk', 'did:key', 'did:jwk'],
        credential_signing_alg_values_supported: [configuration.cryptosuite],
      };
  }
}

/** How long signed metadata is good for (`exp`): a copy kept aside learns of a new certificate within a day. */
export const signedMetadataLifetimeSeconds = 86_400;

/**
 * Signed Credential Issuer Metadata (OpenID4VCI 1.0 §12.2.3): a JWT `typ: openidvci-issuer-metadata+jwt`
 * whose claims are the metadata parameters with `iss` and `sub` the credential issuer identifier,
 * `iat` and `exp`, signed by the tenant's certified ES256 key (its `x5c` in the header, HAIP 1.0).
 */
export function signedMetadata(
  metadata: Record<string, unknown>,
  iat: number,
  key: JoseSigningKey,
): Promise<string> {
  // A signed_metadata value never appears as a claim of the JWT (the OpenID4VCI drafts).
  const parameters = { ...metadata };
  delete parameters.signed_metadata;
  const issuer = metadata.credential_issuer;
  const claims = {
    ...parameters,
    iss: issuer,
    sub: issuer,
    iat,
    exp: iat + signedMetadataLifetimeSeconds,
  };
  return signCompactJws(signingHeader(key, 'openidvci-issuer-metadata+jwt'), claims, (data) =>
    key.sign(data),
  );
}

/**
 * OAuth 2.0 Authorization Server Metadata (RFC 8414) for the pre-authorized and authorization code
 * flows (§12.3): PAR only (RFC 9126 §5), PKCE S256 only (RFC 7636), `iss` in the response (RFC 9207).
 */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    pushed_authorization_request_endpoint: `${issuer}/par`,
    require_pushed_authorization_requests: true,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    'pre-authorized_grant_anonymous_access_supported': true,
    grant_types_supported: [
      'authorization_code',
      'urn:ietf:params:oauth:grant-type:pre-authorized_code',
    ],
    dpop_signing_alg_values_supported: ['ES256'],
    // Wallet attestations (OAuth 2.0 Attestation-Based Client Authentication §10.1, HAIP 1.0 §4.4).
    token_endpoint_auth_methods_supported: ['attest_jwt_client_auth'],
    client_attestation_signing_alg_values_supported: ['ES256'],
    client_attestation_pop_signing_alg_values_supported: ['ES256'],
  };
}
