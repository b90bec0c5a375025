import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery, sortValuesOf } from '../../common/page-query.js';
import { NumberedPageDto } from '../../common/page-dto.js';
import { walletProviderLimits } from '../wallet-provider-limits.js';

/** A self-signed P-256 CA made for the examples (its private key was not kept; docs/trust-anchors.md uses it too). */
const examplePem = [
  '-----BEGIN CERTIFICATE-----',
  'MIIBrzCCAVWgAwIBAgIEEjRWeDAKBggqhkjOPQQDAjA8MRswGQYDVQQDExJFeGFt',
  'cGxlIElzc3VpbmcgQ0ExEDAOBgNVBAoTB0V4YW1wbGUxCzAJBgNVBAYTAk5MMB4X',
  'DTI2MDEwMTAwMDAwMFoXDTM2MDEwMTAwMDAwMFowPDEbMBkGA1UEAxMSRXhhbXBs',
  'ZSBJc3N1aW5nIENBMRAwDgYDVQQKEwdFeGFtcGxlMQswCQYDVQQGEwJOTDBZMBMG',
  'ByqGSM49AgEGCCqGSM49AwEHA0IABIEL1qO1WJEQvXpxUT+JcHtJNhcNvgYbtX77',
  '2QykWsQHFmBEHEycdiSglpbjsr9a9/DFmETMwCA8J8K51AkNXQKjRTBDMBIGA1Ud',
  'EwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/BAQDAgEGMB0GA1UdDgQWBBRCZPpKJQil',
  'zjiKM63tmXv5QxpXOTAKBggqhkjOPQQDAgNIADBFAiB11FC/3dIl80KAJvOn9vMo',
  'sf+/FY85O9s0VLEHQmaAbQIhAN5MgQd2hhEX2ue0frlKJ+ePmuhkCpJ4ED8YC5mA',
  'K3B0',
  '-----END CERTIFICATE-----',
  '',
].join('\n');

export const walletProviderExample = {
  id: '7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b',
  tenantId: 'acme',
  label: 'Example Wallet Provider',
  subject: 'CN=Example Issuing CA, O=Example, C=NL',
  issuer: 'CN=Example Issuing CA, O=Example, C=NL',
  notBefore: '2026-01-01T00:00:00.000Z',
  notAfter: '2036-01-01T00:00:00.000Z',
  subjectKeyIdentifier: 'QmT6SiUIpc44ijOt7Zl7-UMaVzk',
  certificate: examplePem,
  createdAt: '2026-11-25T10:00:00.000Z',
};

export class CreateWalletProviderDto {
  @ApiProperty({
    description:
      'The wallet provider’s X.509 certificate in PEM (RFC 7468): the CA (basicConstraints cA) or self-signed certificate its wallet attestations’ x5c chains end at, at most 8 KiB of DER.',
    example: examplePem,
    maxLength: walletProviderLimits.pemChars,
  })
  @IsString()
  @MaxLength(walletProviderLimits.pemChars)
  certificate!: string;

  @ApiPropertyOptional({
    description: 'A note for people.',
    example: walletProviderExample.label,
    maxLength: walletProviderLimits.labelChars,
  })
  @IsOptional()
  @IsString()
  @MaxLength(walletProviderLimits.labelChars)
  label?: string;
}

export class WalletProviderDto {
  @ApiProperty({ format: 'uuid', example: walletProviderExample.id })
  id!: string;

  @ApiProperty({ example: walletProviderExample.tenantId })
  tenantId!: string;

  @ApiProperty({ type: 'string', nullable: true, example: walletProviderExample.label })
  label!: string | null;

  @ApiProperty({
    description: 'The certificate’s subject name.',
    example: walletProviderExample.subject,
  })
  subject!: string;

  @ApiProperty({
    description: 'The certificate’s issuer name.',
    example: walletProviderExample.issuer,
  })
  issuer!: string;

  @ApiProperty({ example: walletProviderExample.notBefore })
  notBefore!: string;

  @ApiProperty({ example: walletProviderExample.notAfter })
  notAfter!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The subject key identifier, base64url.',
    example: walletProviderExample.subjectKeyIdentifier,
  })
  subjectKeyIdentifier!: string | null;

  @ApiProperty({ description: 'The certificate, PEM.', example: walletProviderExample.certificate })
  certificate!: string;

  @ApiProperty({ example: walletProviderExample.createdAt })
  createdAt!: string;
}

export class WalletProviderPageDto extends NumberedPageDto(WalletProviderDto) {}

export const sortFields = ['subject', 'notAfter', 'createdAt'] as const;
export type SortField = (typeof sortFields)[number];
const sortValues = sortValuesOf(sortFields);

export class ListWalletProvidersQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Sort field and direction; the id breaks ties. Direction defaults to asc.',
    default: 'createdAt,desc',
    enum: sortValues,
    example: 'notAfter,asc',
  })
  @IsOptional()
  @IsIn(sortValues, {
    message: `must be one of ${sortFields.join('|')}, optionally with ,asc or ,desc`,
  })
  sort?: string;
}
