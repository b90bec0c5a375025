import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { tenantIdPattern, tenantIdRule } from '../tenant-id.js';

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
    IsOptional(),
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
    IsOptional(),
    IsString({ message: 'must be a string' }),
    Length(1, 200, { message: 'must be 1-200 characters after trimming' }),
    Matches(/^[^\p{Cc}]*$/u, { message: 'must not contain control characters' }),
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
    IsOptional(),
    ValidateIf((_object, value) => value !== null && value !== ''),
    IsString({ message: 'must be a string' }),
    MaxLength(2048, { message: 'must be at most 2048 characters' }),
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
