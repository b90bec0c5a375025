import { Logger } from '@nestjs/common';
import { type Actor } from '../auth/caller.js';
import { type CredentialConfigurationsService } from './credential-configurations.service.js';
import { type CreateCredentialConfigurationDto } from './dto/credential-configuration.dto.js';
import {
  configurationExample,
  ldpConfigurationExample,
  mdocExamples,
} from './dto/credential-configuration.examples.js';

/** The example's badge without its logo: a wallet would try to load the example's image and fail. */
const badgeDisplay = configurationExample.display.map(({ logo: _logo, ...display }) => display);

/**
 * What local mode gives a tenant it makes at the first start, so that an offer can be made and scanned
 * at once (docs/oid4vci.md): the employee badge the API's examples name, as an SD-JWT VC and as ldp_vc,
 * and the examples' mobile driving licence as an mdoc (docs/mdoc.md).
 */
export const demoConfigurations: readonly CreateCredentialConfigurationDto[] = [
  {
    id: configurationExample.id,
    format: configurationExample.format,
    vct: configurationExample.vct,
    claims: configurationExample.claims,
    display: badgeDisplay,
    selectivelyDisclosable: configurationExample.selectivelyDisclosable,
    expiresInSeconds: configurationExample.expiresInSeconds,
    revocable: configurationExample.revocable,
    signingAlgorithm: configurationExample.signingAlgorithm,
    claimsFromLogin: configurationExample.claimsFromLogin ?? undefined,
  },
  {
    id: 'EmployeeBadge_ldp_vc',
    ...ldpConfigurationExample,
    format: 'ldp_vc',
    cryptosuite: 'eddsa-rdfc-2022',
  },
  // Its own id: the create examples' `mDL` still makes one beside it (docs/api.md).
  { ...mdocExamples.mdl, id: 'DrivingLicence_mdoc', format: 'mso_mdoc' },
];

/** Adds the demo configurations to a tenant local mode has just made (the caller knows it is new). */
export async function createDemoConfigurations(
  configurations: CredentialConfigurationsService,
  tenantId: string,
  actor: Actor,
): Promise<void> {
  const logger = new Logger('LocalMode');
  for (const configuration of demoConfigurations) {
    await configurations.create(tenantId, configuration, actor);
    logger.log({
      msg: `Gave tenant "${tenantId}" the credential configuration "${configuration.id}", ready for offers`,
      event: 'local-mode.configuration-created',
      tenantId,
      configurationId: configuration.id,
    });
  }
}
