import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { plainToInstance, Transform } from 'class-transformer';
import {
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
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { configurationExample } from '../../dto/credential-configuration.examples.js';
import { type OfferGrant } from '../offer.entity.js';
import { offerLimits as limits } from '../offer-limits.js';

export const offerGrants = ['pre-authorized_code', 'authorization_code'] as const;

/** The transaction code asked for: its length, what the user types, and what the wallet shows. */
export class TxCodeRequestDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: limits.txCodeMinLength,
    maximum: limits.txCodeMaxLength,
    default: limits.txCodeDefaultLength,
    example: 6,
  })
  @IsOptional()
  @Max(limits.txCodeMaxLength, {
    message: `must be ${limits.txCodeMinLength}-${limits.txCodeMaxLength}`,
  })
  @Min(limits.txCodeMinLength, {
    message: `must be ${limits.txCodeMinLength}-${limits.txCodeMaxLength}`,
  })
  @IsInt({ message: 'must be a whole number' })
  length?: number;

  @ApiPropertyOptional({ enum: ['numeric', 'text'], default: 'numeric', example: 'numeric' })
  @IsOptional()
  @IsIn(['numeric', 'text'], { message: 'must be numeric or text' })
  inputMode?: 'numeric' | 'text';

  @ApiPropertyOptional({
    maxLength: limits.txCodeDescriptionChars,
    example: 'The code we sent you by e-mail',
  })
  @IsOptional()
  @MaxLength(limits.txCodeDescriptionChars)
  @IsString()
  description?: string;
}

export const offerClaimsExample = { given_name: 'Erika', employee_id: 'E-1042' };

/** A credential offer for one subject, of one of the tenant's credential configurations. */
export class CreateOfferDto {
  @ApiProperty({
    description: 'The credential configuration to offer.',
    example: configurationExample.id,
  })
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'must be a credential configuration id' })
  @IsString()
  credentialConfigurationId!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `The subject's claims (dc+sd-jwt: the payload's claims; ldp_vc: the properties of credentialSubject). Where the configuration lists claims, only those and every mandatory one. At most ${limits.claimsBytes} bytes of JSON, ${limits.claimsDepth} levels deep.`,
    example: offerClaimsExample,
  })
  @IsObject({ message: 'must be a JSON object' })
  claims!: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      'Ask for a transaction code (OpenID4VCI 1.0 §4.1.1 `tx_code`): `true` for six digits, or its length, input mode and description. The code is answered once, in the create answer.',
    oneOf: [{ type: 'boolean' }, { $ref: getSchemaPath(TxCodeRequestDto) }],
    example: true,
  })
  @IsOptional()
  // `true` or an object; `false` is the same as leaving it out.
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? plainToInstance(TxCodeRequestDto, value)
      : value,
  )
  @ValidateIf((_, value) => typeof value !== 'boolean')
  @ValidateNested()
  @IsObject({ message: 'must be true, false or an object' })
  txCode?: boolean | TxCodeRequestDto;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: limits.minExpiresIn,
    maximum: limits.maxExpiresIn,
    default: limits.defaultExpiresIn,
    description: 'How long the offer stays open, in seconds.',
    example: 600,
  })
  @IsOptional()
  @Max(limits.maxExpiresIn, { message: `must be ${limits.minExpiresIn}-${limits.maxExpiresIn}` })
  @Min(limits.minExpiresIn, { message: `must be ${limits.minExpiresIn}-${limits.maxExpiresIn}` })
  @IsInt({ message: 'must be a whole number' })
  expiresInSeconds?: number;

  @ApiPropertyOptional({
    default: false,
    description:
      'Put the offer itself in the link (`credential_offer`) rather than its URI (`credential_offer_uri`).',
    example: false,
  })
  @IsOptional()
  @IsBoolean()
  byValue?: boolean;

  @ApiPropertyOptional({
    enum: offerGrants,
    default: 'pre-authorized_code',
    description:
      "How the wallet redeems the offer: the pre-authorized code, or `authorization_code`, where the person logs in first (OpenID4VCI 1.0 §5; the offer carries `issuer_state`). An authorization_code offer needs a configuration with `claimsFromLogin`; its `claims` are then what the login does not give (the login's win on a claim both set), and it takes no `txCode`.",
    example: 'pre-authorized_code',
  })
  @IsOptional()
  @IsIn(offerGrants, { message: `must be one of ${offerGrants.join(', ')}` })
  grant?: OfferGrant;

  @ApiPropertyOptional({
    maxLength: 255,
    description:
      "authorization_code only: the person the offer is for, as the login names them (`sub` or `preferred_username`); another person's login is refused.",
    example: 'erika.mustermann',
  })
  @IsOptional()
  @Matches(/^[^\p{Cc}]{1,255}$/u, { message: 'must be 1-255 characters' })
  @IsString()
  subject?: string;
}
