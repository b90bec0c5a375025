import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayContains,
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { loginProviderLimits } from '../login-provider-limits.js';

/** RFC 6749 §A.1 (client_id, client_secret: VSCHAR) and §A.4 (scope-token). */
const vschars = /^[\x20-\x7E]+$/;
const scopeToken = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export const loginProviderExample = {
  issuer: 'https://login.example.com/realms/people',
  clientId: 'acme-issuance',
  scopes: ['openid', 'profile', 'email'],
  redirectUri: 'https://agent.example.com/ctrl/oid4vci/acme/login/callback',
  default: false,
  createdAt: '2026-11-29T09:00:00.000Z',
};

export const defaultLoginProviderExample = {
  issuer: 'https://agent.example.com/auth/realms/agent-cloud',
  clientId: 'agent-issuance-login',
  scopes: ['openid', 'profile', 'email'],
  redirectUri: 'https://agent.example.com/ctrl/oid4vci/acme/login/callback',
  default: true,
  createdAt: null,
};

export class SetLoginProviderDto {
  @ApiProperty({
    description:
      'The OpenID provider’s issuer identifier, exactly as its discovery document (`{issuer}/.well-known/openid-configuration`, fetched when saving) and its ID tokens name it. https, no query or fragment.',
    example: loginProviderExample.issuer,
    maxLength: loginProviderLimits.issuerChars,
  })
  @IsString()
  @MaxLength(loginProviderLimits.issuerChars)
  issuer!: string;

  @ApiProperty({
    description: 'The client registered at the provider for this tenant.',
    example: loginProviderExample.clientId,
    maxLength: loginProviderLimits.clientIdChars,
  })
  @IsString()
  @MaxLength(loginProviderLimits.clientIdChars)
  @Matches(vschars, { message: '$property must be 1 or more printable ASCII characters' })
  clientId!: string;

  @ApiProperty({
    description:
      'The client’s secret: stored sealed, sent only to the provider’s token endpoint, never answered again.',
    example: 'a-long-random-secret',
    maxLength: loginProviderLimits.clientSecretChars,
    writeOnly: true,
  })
  @IsString()
  @MaxLength(loginProviderLimits.clientSecretChars)
  @Matches(vschars, { message: '$property must be 1 or more printable ASCII characters' })
  clientSecret!: string;

  @ApiPropertyOptional({
    description: 'The scopes asked for: `openid` among them. Default `openid profile email`.',
    example: loginProviderExample.scopes,
    maxItems: loginProviderLimits.scopes,
    type: [String],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(loginProviderLimits.scopes)
  @ArrayUnique()
  @ArrayContains(['openid'], { message: '$property must include openid' })
  @IsString({ each: true })
  @MaxLength(loginProviderLimits.scopeChars, { each: true })
  @Matches(scopeToken, { each: true, message: 'each value in $property must be a scope token' })
  scopes?: string[];
}

export class LoginProviderDto {
  @ApiProperty({ example: loginProviderExample.issuer })
  issuer!: string;

  @ApiProperty({ example: loginProviderExample.clientId })
  clientId!: string;

  @ApiProperty({ type: [String], example: loginProviderExample.scopes })
  scopes!: string[];

  @ApiProperty({
    description:
      'Where the provider sends the person back: register it with the client. The same for every provider of the tenant.',
    example: loginProviderExample.redirectUri,
  })
  redirectUri!: string;

  @ApiProperty({
    description:
      'True: the tenant has none configured, and uses the bundled realm’s client `agent-issuance-login`.',
    example: false,
  })
  default!: boolean;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'When this provider was set; null for the default.',
    example: loginProviderExample.createdAt,
  })
  createdAt!: string | null;
}
