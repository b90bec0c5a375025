import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { NumberedPageDto } from '../../common/page-dto.js';
import { configurationExample } from './credential-configuration.examples.js';
import {
  cryptosuites,
  formats,
  signingAlgorithms,
  type CredentialFormat,
  type Cryptosuite,
  type SigningAlgorithm,
} from './credential-configuration.dto.js';
import {
  ClaimDescriptionDto,
  claimPathSchema,
  CredentialDefinitionDto,
  CredentialDisplayDto,
  type ClaimPathElement,
} from './credential-display.dto.js';
import { KeyAttestationsRequiredDto } from './key-attestations-required.dto.js';

/** A configuration as the API answers it: every field, defaults applied, null where the format has none. */
export class CredentialConfigurationDto {
  @ApiProperty({ example: configurationExample.id })
  id!: string;

  @ApiProperty({ example: configurationExample.tenantId })
  tenantId!: string;

  @ApiProperty({ enum: formats, example: configurationExample.format })
  format!: CredentialFormat;

  @ApiProperty({ type: 'string', nullable: true, example: configurationExample.vct })
  vct!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: null,
    description: 'mso_mdoc: the mdoc document type; null for the other formats.',
  })
  doctype!: string | null;

  @ApiProperty({
    description: 'ldp_vc: the credential definition; null for the other formats.',
    // OpenAPI 3.0 has no null type: the second branch is null alone.
    oneOf: [
      { $ref: getSchemaPath(CredentialDefinitionDto) },
      { type: 'object', nullable: true, enum: [null] },
    ],
  })
  credentialDefinition!: CredentialDefinitionDto | null;

  @ApiProperty({ type: [ClaimDescriptionDto] })
  claims!: ClaimDescriptionDto[];

  @ApiProperty({ type: [CredentialDisplayDto] })
  display!: CredentialDisplayDto[];

  @ApiProperty({
    type: 'array',
    items: claimPathSchema,
    nullable: true,
    description: 'dc+sd-jwt: the selectively disclosable claim paths; null for ldp_vc.',
  })
  selectivelyDisclosable!: ClaimPathElement[][] | null;

  @ApiProperty({ type: 'integer', nullable: true, example: configurationExample.expiresInSeconds })
  expiresInSeconds!: number | null;

  @ApiProperty({ example: true })
  revocable!: boolean;

  @ApiProperty({
    type: 'string',
    enum: [...signingAlgorithms, null],
    nullable: true,
    example: 'ES256',
    description: 'dc+sd-jwt: the JOSE algorithm; mso_mdoc: ES256 (COSE -7); null for ldp_vc.',
  })
  signingAlgorithm!: SigningAlgorithm | null;

  @ApiProperty({
    type: 'string',
    enum: [...cryptosuites, null],
    nullable: true,
    example: null,
    description: 'ldp_vc: the Data Integrity cryptosuite; null for dc+sd-jwt.',
  })
  cryptosuite!: Cryptosuite | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string' },
    nullable: true,
    example: configurationExample.claimsFromLogin,
    description:
      "The credential claims the person's login gives (authorization code flow), or null for none.",
  })
  claimsFromLogin!: Record<string, string> | null;

  @ApiProperty({
    description: 'The key attestations every JWT proof must carry (Appendix D); null: none.',
    // OpenAPI 3.0 has no null type: the second branch is null alone.
    oneOf: [
      { $ref: getSchemaPath(KeyAttestationsRequiredDto) },
      { type: 'object', nullable: true, enum: [null] },
    ],
    example: null,
  })
  keyAttestationsRequired!: KeyAttestationsRequiredDto | null;

  @ApiProperty({ example: configurationExample.createdAt })
  createdAt!: string;

  @ApiProperty({ example: configurationExample.updatedAt })
  updatedAt!: string;
}

export class CredentialConfigurationPageDto extends NumberedPageDto(CredentialConfigurationDto) {}
