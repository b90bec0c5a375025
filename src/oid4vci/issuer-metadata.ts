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
  const sdJwt = configuration.format === 'dc+sd-jwt';
  return {
    format: configuration.format,
    scope: configuration.id,
    ...(sdJwt
      ? { vct: configuration.vct }
      : { credential_definition: configuration.credentialDefinition }),
    cryptographic_binding_methods_supported: sdJwt ? ['jwk'] : ['jwk', 'did:key', 'did:jwk'],
    credential_signing_alg_values_supported: [
      sdJwt ? configuration.signingAlgorithm : configuration.cryptosuite,
    ],
    proof_types_supported: { jwt: { proof_signing_alg_values_supported: proofSigningAlgorithms } },
    credential_metadata: { display: configuration.display, claims: configuration.claims },
  };
}

/** OAuth 2.0 Authorization Server Metadata (RFC 8414) for the pre-authorized code flow (§12.3). */
export function authorizationServerMetadata(issuer: string): Record<string, unknown> {
  return {
    issuer,
    token_endpoint: `${issuer}/token`,
    'pre-authorized_grant_anonymous_access_supported': true,
    grant_types_supported: ['urn:ietf:params:oauth:grant-type:pre-authorized_code'],
    dpop_signing_alg_values_supported: ['ES256'],
  };
}
