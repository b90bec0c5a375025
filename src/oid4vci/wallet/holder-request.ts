import {
  type HolderIssuanceOrigin,
  type HolderIssueRequest,
} from '../../credentials/holder-issuance.service.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What the credential endpoint asks the credentials feature to issue: the offer's configuration as it
 * was when offered, with the offer's claims (for ldp_vc, those under `credentialSubject`).
 */
export function holderRequestOf(
  origin: HolderIssuanceOrigin,
  configuration: ConfigurationDefinition,
  claims: Record<string, unknown> | null,
): HolderIssueRequest {
  const given = claims ?? {};
  const common = {
    ...origin,
    expiresInSeconds: configuration.expiresInSeconds,
    revocable: configuration.revocable,
  };
  if (configuration.format === 'dc+sd-jwt') {
    return {
      ...common,
      format: 'dc+sd-jwt',
      vct: configuration.vct ?? '',
      claims: given,
      selectivelyDisclosable:
        configuration.selectivelyDisclosable ?? configuration.claims.map((claim) => claim.path),
      signingAlgorithm: configuration.signingAlgorithm ?? 'ES256',
    };
  }
  return {
    ...common,
    format: 'ldp_vc',
    credentialDefinition: configuration.credentialDefinition ?? {
      '@context': [],
      type: [],
    },
    claims: isObject(given.credentialSubject) ? given.credentialSubject : given,
    cryptosuite: configuration.cryptosuite ?? 'eddsa-rdfc-2022',
  };
}
