import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
  registerDecorator,
} from 'class-validator';
import { configurationLimits as limits } from '../credential-configuration-limits.js';

/** BCP 47 language tags, as OpenID4VCI 1.0 display entries carry them (`en`, `de-CH`). */
const localePattern = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8}){0,4}$/;
const localeRule = 'must be a BCP 47 language tag (en, de-CH)';

/** One element of a claim path (OpenID4VCI 1.0 Appendix C): a key, an array index, or null for all. */
export type ClaimPathElement = string | number | null;

function isPathElement(value: unknown): value is ClaimPathElement {
  if (value === null) return true;
  if (typeof value === 'string') return value.length > 0 && value.length <= limits.pathKeyChars;
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= limits.pathIndex;
}

export function isClaimPath(value: unknown): value is ClaimPathElement[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.length <= limits.pathDepth &&
    value.every(isPathElement)
  );
}

export const claimPathRule = `must be 1-${limits.pathDepth} elements, each a key of 1-${limits.pathKeyChars} characters, an index 0-${limits.pathIndex} or null`;

/** A claim path: class-validator has no rule for an array of mixed element types. */
export function IsClaimPath(each = false): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isClaimPath',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: each ? `each ${claimPathRule}` : claimPathRule },
      validator: {
        validate: (value: unknown) =>
          each ? Array.isArray(value) && value.every(isClaimPath) : isClaimPath(value),
      },
    });
}

export const claimPathSchema = {
  type: 'array' as const,
  minItems: 1,
  maxItems: limits.pathDepth,
  items: {
    // OpenAPI 3.0 has no null type: the third branch is null alone.
    oneOf: [
      { type: 'string' as const, minLength: 1, maxLength: limits.pathKeyChars },
      { type: 'integer' as const, minimum: 0, maximum: limits.pathIndex },
      { type: 'string' as const, nullable: true, enum: [null], description: 'every element' },
    ],
  },
};

export class ClaimDisplayDto {
  @ApiProperty({ example: 'Given name', minLength: 1, maxLength: 256 })
  @IsString()
  @Length(1, 256)
  name!: string;

  @ApiPropertyOptional({ example: 'en', maxLength: 35 })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  @Matches(localePattern, { message: localeRule })
  locale?: string;
}

/** A claim description of OpenID4VCI 1.0 Appendix B.2. */
export class ClaimDescriptionDto {
  @ApiProperty({
    ...claimPathSchema,
    description:
      'Where the claim is in the credential (OpenID4VCI 1.0 Appendix C): keys, array indexes, null for every element. For ldp_vc it starts with `credentialSubject`.',
    example: ['given_name'],
  })
  @IsClaimPath()
  path!: ClaimPathElement[];

  @ApiPropertyOptional({ description: 'Whether every credential carries the claim.' })
  @IsOptional()
  @IsBoolean()
  mandatory?: boolean;

  @ApiPropertyOptional({ type: [ClaimDisplayDto], maxItems: limits.displays })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(limits.displays)
  @ValidateNested({ each: true })
  @Type(() => ClaimDisplayDto)
  display?: ClaimDisplayDto[];
}

export class LogoDto {
  @ApiProperty({ example: 'https://acme.example/badge.png', maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  @Matches(/^(https:\/\/|data:)\S+$/, { message: 'must be an https: or data: URI' })
  uri!: string;

  @ApiPropertyOptional({ example: 'The ACME badge', maxLength: 256 })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  alt_text?: string;
}

const colorPattern = /^#[0-9A-Fa-f]{3,8}$|^[a-z]{3,20}$/;

/** How a wallet shows credentials of the configuration (OpenID4VCI 1.0 §12.2.4, `credential_metadata.display`). */
export class CredentialDisplayDto {
  @ApiProperty({ example: 'Employee badge', minLength: 1, maxLength: 256 })
  @IsString()
  @Length(1, 256)
  name!: string;

  @ApiPropertyOptional({ example: 'en', maxLength: 35 })
  @IsOptional()
  @IsString()
  @MaxLength(35)
  @Matches(localePattern, { message: localeRule })
  locale?: string;

  @ApiPropertyOptional({ type: LogoDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => LogoDto)
  logo?: LogoDto;

  @ApiPropertyOptional({ example: 'Proves employment at ACME.', maxLength: 1000 })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string;

  @ApiPropertyOptional({ example: '#12107c', description: 'A CSS color: #hex or a name.' })
  @IsOptional()
  @IsString()
  @Matches(colorPattern, { message: 'must be a CSS color: #hex or a name' })
  background_color?: string;

  @ApiPropertyOptional({ example: '#ffffff', description: 'A CSS color: #hex or a name.' })
  @IsOptional()
  @IsString()
  @Matches(colorPattern, { message: 'must be a CSS color: #hex or a name' })
  text_color?: string;
}

/** The W3C credential's `@context` and `type`, for ldp_vc (OpenID4VCI 1.0 Appendix A.1.2). */
export class CredentialDefinitionDto {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: limits.definitionEntries,
    example: [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(limits.definitionEntries)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  @Matches(/^https?:\/\/\S+$/, { each: true, message: 'each must be an http(s) URL' })
  '@context'!: string[];

  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: limits.definitionEntries,
    example: ['VerifiableCredential', 'EmployeeBadge'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(limits.definitionEntries)
  @IsString({ each: true })
  @Length(1, 256, { each: true })
  type!: string[];
}
