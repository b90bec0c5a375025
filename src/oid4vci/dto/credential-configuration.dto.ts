import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { configurationLimits as limits } from '../credential-configuration-limits.js';
import {
  ClaimDescriptionDto,
  claimPathSchema,
  CredentialDefinitionDto,
  CredentialDisplayDto,
  IsClaimPath,
  type ClaimPathElement,
} from './credential-display.dto.js';
import {
  claimsFromLoginExample,
  configurationExample,
  mdocExamples,
} from './credential-configuration.examples.js';
import { KeyAttestationsRequiredDto } from './key-attestations-required.dto.js';

export const formats = ['dc+sd-jwt', 'ldp_vc', 'mso_mdoc'] as const;
export type CredentialFormat = (typeof formats)[number];
export const signingAlgorithms = ['ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];
export const cryptosuites = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const;
export type Cryptosuite = (typeof cryptosuites)[number];
export const configurationIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;
export class CredentialConfigurationBodyDto {
  @ApiProperty({ enum: formats, example: configurationExample.format })
  @IsIn(formats, { message: `must be one of ${formats.join(', ')}` })
  format!: CredentialFormat;

  @ApiPropertyOptional({
    description: 'The SD-JWT VC type (a URI or a name); required for dc+sd-jwt, refused otherwise.',
    example: configurationExample.vct,
    maxLength: 2048,
  })
  @IsOptional()
  @IsString()
  @Matches(/^[^\s\p{Cc}]{1,2048}$/u, { message: 'must be 1-2048 characters without spaces' })
  vct?: string;

  @ApiPropertyOptional({
    description:
      'The mdoc document type (ISO/IEC 18013-5); required for mso_mdoc, refused otherwise.',
    example: mdocExamples.mdl.doctype,
    maxLength: 256,
  })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  doctype?: string;

  @ApiPropertyOptional({
    type: CredentialDefinitionDto,
    description:
      'Required for ldp_vc (its `type` includes VerifiableCredential), refused otherwise.',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CredentialDefinitionDto)
  credentialDefinition?: CredentialDefinitionDto;

  @ApiPropertyOptional({
    type: [ClaimDescriptionDto],
    maxItems: limits.claims,
    description: 'Default: none.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(limits.claims)
  @ValidateNested({ each: true })
  @Type(() => ClaimDescriptionDto)
  claims?: ClaimDescriptionDto[];

  @ApiPropertyOptional({
    type: [CredentialDisplayDto],
    maxItems: limits.displays,
    description: 'Default: none.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(limits.displays)
  @ValidateNested({ each: true })
  @Type(() => CredentialDisplayDto)
  display?: CredentialDisplayDto[];

  @ApiPropertyOptional({
    type: 'array',
    items: claimPathSchema,
    maxItems: limits.claims,
    description:
      'dc+sd-jwt only: the claim paths issued as selectively disclosable, each one of `claims`. Default: every claim.',
    example: configurationExample.selectivelyDisclosable,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(limits.claims)
  @IsClaimPath(true)
  selectivelyDisclosable?: ClaimPathElement[][];

  @ApiPropertyOptional({
    type: 'integer',
    minimum: limits.minExpiresIn,
    maximum: limits.maxExpiresIn,
    description:
      'How long issued credentials are valid, in seconds. Default: no expiry; for mso_mdoc a year (an MSO always has validUntil).',
    example: configurationExample.expiresInSeconds,
  })
  @IsOptional()
  @Max(limits.maxExpiresIn, { message: `must be at most ${limits.maxExpiresIn}` })
  @Min(limits.minExpiresIn, { message: `must be at least ${limits.minExpiresIn}` })
  @IsInt({ message: 'must be a whole number' })
  expiresInSeconds?: number;

  @ApiPropertyOptional({
    description: 'Whether issued credentials get a status entry. Default: true.',
  })
  @IsOptional()
  @IsBoolean()
  revocable?: boolean;

  @ApiPropertyOptional({
    enum: signingAlgorithms,
    description:
      'dc+sd-jwt: the JOSE algorithm of the issuer signature (default ES256); mso_mdoc: ES256 only (COSE -7); refused for ldp_vc.',
  })
  @IsOptional()
  @IsIn(signingAlgorithms, { message: `must be one of ${signingAlgorithms.join(', ')}` })
  signingAlgorithm?: SigningAlgorithm;

  @ApiPropertyOptional({
    enum: cryptosuites,
    description:
      'ldp_vc only: the Data Integrity cryptosuite of the proof. Default: eddsa-rdfc-2022.',
  })
  @IsOptional()
  @IsIn(cryptosuites, { message: `must be one of ${cryptosuites.join(', ')}` })
  cryptosuite?: Cryptosuite;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    maxProperties: limits.claims,
    description:
      "The credential claims the person's login gives in the authorization code flow, `{credentialClaim: loginClaim}` (top-level claims; ldp_vc: of credentialSubject). A wallet may start issuance itself (scope or authorization_details without an offer) only when every claim comes from the login. Default: none.",
    example: claimsFromLoginExample,
  })
  @IsOptional()
  @IsObject({ message: 'must be an object of claim names' })
  claimsFromLogin?: Record<string, string>;

  @ApiPropertyOptional({
    type: KeyAttestationsRequiredDto,
    description:
      'Requires a key attestation (OpenID4VCI 1.0 Appendix D) in every JWT proof, signed by one of the tenant’s wallet providers, advertised as `key_attestations_required`. Default: none required.',
    example: { key_storage: ['iso_18045_high'] },
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => KeyAttestationsRequiredDto)
  keyAttestationsRequired?: KeyAttestationsRequiredDto;
}

export class CreateCredentialConfigurationDto extends CredentialConfigurationBodyDto {
  @ApiProperty({
    description:
      'The credential configuration id wallets see (`credential_configuration_id`), unique in the tenant.',
    pattern: configurationIdPattern.source,
    example: configurationExample.id,
  })
  @IsString()
  @Matches(configurationIdPattern, { message: 'must be 1-64 characters of A-Z a-z 0-9 _ . -' })
  id!: string;
}
