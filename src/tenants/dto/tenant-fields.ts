import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, IsUrl, Matches, ValidateBy, ValidateIf } from 'class-validator';
import { tenantIdPattern, tenantIdRule } from '../../tenancy/tenant-id.js';

/** Absent is fine; JSON null is not a value for a required-when-given field (IsOptional lets it pass). */
const unlessAbsent = () => ValidateIf((_object, value) => value !== undefined);

/** Length in code points, as PostgreSQL's varchar counts it (class-validator's Length does not). */
const CodePointLength = (min: number, max: number, message: string) =>
  ValidateBy({
    name: 'codePointLength',
    validator: {
      validate: (value: unknown) => {
        if (typeof value !== 'string') return false;
        const length = [...value].length;
        return length >= min && length <= max;
      },
      defaultMessage: () => message,
    },
  });

/** No control characters, and well-formed Unicode (a lone surrogate would be stored as U+FFFD). */
export const noControlCharacters = () =>
  Matches(/^[^\p{Cc}\p{Cs}]*$/u, {
    message: 'must not contain control characters or broken Unicode',
  });

const trimmed = () =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Validation of the tenant fields, shared by the query and body forms of create and update. */
export const TenantIdField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description: `Tenant id: ${tenantIdRule}. Case-sensitive, immutable.`,
      example: 'acme',
      pattern: tenantIdPattern.source,
    }),
    unlessAbsent(),
    IsString({ message: 'must be a string' }),
    Matches(tenantIdPattern, { message: `must be ${tenantIdRule}` }),
  );

export const LabelField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description: 'Human-readable name, 1-200 characters after trimming, no control characters.',
      example: 'ACME Corp',
      minLength: 1,
      maxLength: 200,
    }),
    trimmed(),
    unlessAbsent(),
    IsString({ message: 'must be a string' }),
    CodePointLength(1, 200, 'must be 1-200 characters after trimming'),
    noControlCharacters(),
  );

/** `null` (body) or an empty value (query) clears the image on update. */
export const ImageUrlField = () =>
  applyDecorators(
    ApiPropertyOptional({
      description:
        'Logo or picture of the tenant: an http(s) URL of at most 2048 characters. On update, null or an empty value removes it.',
      example: 'https://acme.example/logo.png',
      maxLength: 2048,
      nullable: true,
      type: String,
    }),
    trimmed(),
    ValidateIf((_object, value) => value !== undefined && value !== null && value !== ''),
    IsString({ message: 'must be a string' }),
    CodePointLength(1, 2048, 'must be at most 2048 characters'),
    noControlCharacters(),
    IsUrl(
      {
        protocols: ['http', 'https'],
        require_protocol: true,
        require_tld: false,
        allow_underscores: true,
      },
      { message: 'must be an http or https URL' },
    ),
  );

export class TenantFieldsDto {
  @TenantIdField()
  id?: string;

  @LabelField()
  label?: string;

  @ImageUrlField()
  imageUrl?: string | null;
}

export class TenantUpdateFieldsDto {
  @LabelField()
  label?: string;

  @ImageUrlField()
  imageUrl?: string | null;
}
