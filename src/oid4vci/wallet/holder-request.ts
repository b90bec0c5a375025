import {
  type HolderIssuanceOrigin,
  type HolderIssueRequest,
} from '../../credentials/issuing/holder-issuance.service.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';

/**
 * What the credential endpoint asks the credentials feature to issue: the offer's configuration as it
 * was when offered, with the offer's claims as given: for ldp_vc they are the properties of
 * `credentialSubject`, as the offers API checked them, for mso_mdoc the elements by namespace
 * (docs/oid4vci.md, "Offers").
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
  if (configuration.format === 'mso_mdoc') {
    return { ...common, format: 'mso_mdoc', doctype: configuration.doctype ?? '', claims: given };
  }
  return {
    ...common,
    format: 'ldp_vc',
    credentialDefinition: configuration.credentialDefinition ?? {
      '@context': [],
      type: [],
    },
    claims: given,
    cryptosuite: configuration.cryptosuite ?? 'eddsa-rdfc-2022',
  };
}
