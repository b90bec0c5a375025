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
import { KeyAttestationsRequiredDto } from './key-attestations-required.dto.js';

export const formats = ['dc+sd-jwt', 'ldp_vc', 'mso_mdoc'] as const;
export type CredentialFormat = (typeof formats)[number];
export const signingAlgorithms = ['ES256', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof signingAlgorithms)[number];
export const cryptosuites = ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const;
export type Cryptosuite = (typeof cryptosuites)[number];
export const configurationIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** The employee badge's claims from the login: what makes it issuable by the authorization code flow. */
export const claimsFromLoginExample = {
  given_name: 'given_name',
  employee_id: 'preferred_username',
};

export const configurationExample = {
  id: 'EmployeeBadge_sd_jwt',
  tenantId: 'acme',
  format: 'dc+sd-jwt' as CredentialFormat,
  vct: 'https://acme.example/credentials/employee-badge',
  doctype: null as string | null,
  credentialDefinition: null,
  claims: [
    { path: ['given_name'], mandatory: true, display: [{ name: 'Given name', locale: 'en' }] },
    { path: ['employee_id'], mandatory: true, display: [{ name: 'Employee id', locale: 'en' }] },
  ],
  display: [
    {
      name: 'Employee badge',
      locale: 'en',
      logo: { uri: 'https://acme.example/badge.png', alt_text: 'The ACME badge' },
      description: 'Proves employment at ACME.',
      background_color: '#12107c',
      text_color: '#ffffff',
    },
  ],
  selectivelyDisclosable: [['given_name'], ['employee_id']],
  expiresInSeconds: 31_536_000,
  revocable: true,
  signingAlgorithm: 'ES256' as SigningAlgorithm,
  cryptosuite: null,
  claimsFromLogin: claimsFromLoginExample as Record<string, string> | null,
  keyAttestationsRequired: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

export const ldpConfigurationExample = {
  format: 'ldp_vc',
  credentialDefinition: {
    '@context': [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
    type: ['VerifiableCredential', 'EmployeeBadge'],
  },
  claims: [{ path: ['credentialSubject', 'name'], display: [{ name: 'Name', locale: 'en' }] }],
  display: [{ name: 'Employee badge', locale: 'en' }],
  cryptosuite: 'eddsa-rdfc-2022',
};

/**
 * The create examples add a kind the demo tenant of local mode does not have yet (it starts with the
 * employee badge, src/oid4vci/demo-configurations.ts), so that they answer 201 as given.
 */
export const visitorPassExamples = {
  sdJwt: {
    id: 'VisitorPass_sd_jwt',
    format: 'dc+sd-jwt',
    vct: 'https://acme.example/credentials/visitor-pass',
    claims: [
      { path: ['given_name'], mandatory: true, display: [{ name: 'Given name', locale: 'en' }] },
      { path: ['valid_on'], display: [{ name: 'Valid on', locale: 'en' }] },
    ],
    display: [{ name: 'Visitor pass', locale: 'en', description: 'Lets a visitor in for a day.' }],
    expiresInSeconds: 86_400,
    claimsFromLogin: { given_name: 'given_name' },
  },
  ldpVc: {
    id: 'VisitorPass_ldp_vc',
    format: 'ldp_vc',
    credentialDefinition: {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://www.w3.org/ns/credentials/examples/v2',
      ],
      type: ['VerifiableCredential', 'VisitorPass'],
    },
    claims: [{ path: ['credentialSubject', 'name'], display: [{ name: 'Name', locale: 'en' }] }],
    display: [{ name: 'Visitor pass', locale: 'en' }],
  },
};

/** The ISO namespace of the mDL's elements (ISO/IEC 18013-5 §7.2.1). */
const mdlNamespace = 'org.iso.18013.5.1';
/** The EU PID's namespace (PID Rulebook, ISO/IEC 18013-5 encoding). */
const pidNamespace = 'eu.europa.ec.eudi.pid.1';

/** mso_mdoc examples (OpenID4VCI 1.0 appendix A.2): a mobile driving licence and an EU PID. */
export const mdocExamples = {
  mdl: {
    id: 'mDL',
    format: 'mso_mdoc',
    doctype: 'org.iso.18013.5.1.mDL',
    claims: [
      {
        path: [mdlNamespace, 'family_name'],
        mandatory: true,
        display: [{ name: 'Family name', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'given_name'],
        mandatory: true,
        display: [{ name: 'Given name', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'birth_date'],
        mandatory: true,
        display: [{ name: 'Date of birth', locale: 'en' }],
      },
      {
        path: [mdlNamespace, 'document_number'],
        display: [{ name: 'Licence number', locale: 'en' }],
      },
      { path: [mdlNamespace, 'expiry_date'], display: [{ name: 'Expiry date', locale: 'en' }] },
      {
        path: [mdlNamespace, 'driving_privileges'],
        display: [{ name: 'Categories', locale: 'en' }],
      },
    ],
    display: [{ name: 'Mobile driving licence', locale: 'en' }],
    expiresInSeconds: 31_536_000,
  },
  pid: {
    id: 'PID',
    format: 'mso_mdoc',
    doctype: 'eu.europa.ec.eudi.pid.1',
    claims: [
      {
        path: [pidNamespace, 'family_name'],
        mandatory: true,
        display: [{ name: 'Family name', locale: 'en' }],
      },
      {
        path: [pidNamespace, 'given_name'],
        mandatory: true,
        display: [{ name: 'Given name', locale: 'en' }],
      },
      {
        path: [pidNamespace, 'birth_date'],
        mandatory: true,
        display: [{ name: 'Date of birth', locale: 'en' }],
      },
      { path: [pidNamespace, 'age_over_18'], display: [{ name: 'Over 18', locale: 'en' }] },
      { path: [pidNamespace, 'nationality'], display: [{ name: 'Nationality', locale: 'en' }] },
    ],
    display: [{ name: 'Person identification data', locale: 'en' }],
    expiresInSeconds: 7_776_000,
  },
};

/** A configuration's definition: the body of an update, and of a create with its `id`. */
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
