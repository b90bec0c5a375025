import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { PageQuery, sortValuesOf } from '../../common/page-query.js';
import { NumberedPageDto } from '../../common/page-dto.js';
import { trustAnchorLimits } from '../trust-anchor-limits.js';

/** A self-signed P-256 CA made for the examples (its private key was not kept). */
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

export const trustAnchorExample = {
  id: '5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d',
  tenantId: 'acme',
  label: 'The Example issuing CA',
  subject: 'CN=Example Issuing CA, O=Example, C=NL',
  issuer: 'CN=Example Issuing CA, O=Example, C=NL',
  notBefore: '2026-01-01T00:00:00.000Z',
  notAfter: '2036-01-01T00:00:00.000Z',
  subjectKeyIdentifier: 'QmT6SiUIpc44ijOt7Zl7-UMaVzk',
  certificate: examplePem,
  createdAt: '2026-11-25T10:00:00.000Z',
};

export class CreateTrustAnchorDto {
  @ApiProperty({
    description:
      'One X.509 certificate in PEM (RFC 7468): a CA certificate (basicConstraints cA) or a self-signed one, at most 8 KiB of DER.',
    example: examplePem,
    maxLength: trustAnchorLimits.pemChars,
  })
  @IsString()
  @MaxLength(trustAnchorLimits.pemChars)
  certificate!: string;

  @ApiPropertyOptional({
    description: 'A note for people.',
    example: trustAnchorExample.label,
    maxLength: trustAnchorLimits.labelChars,
  })
  @IsOptional()
  @IsString()
  @MaxLength(trustAnchorLimits.labelChars)
  label?: string;
}

export class TrustAnchorDto {
  @ApiProperty({ format: 'uuid', example: trustAnchorExample.id })
  id!: string;

  @ApiProperty({ example: trustAnchorExample.tenantId })
  tenantId!: string;

  @ApiProperty({ type: 'string', nullable: true, example: trustAnchorExample.label })
  label!: string | null;

  @ApiProperty({
    description: 'The certificate’s subject name.',
    example: trustAnchorExample.subject,
  })
  subject!: string;

  @ApiProperty({
    description: 'The certificate’s issuer name.',
    example: trustAnchorExample.issuer,
  })
  issuer!: string;

  @ApiProperty({ example: trustAnchorExample.notBefore })
  notBefore!: string;

  @ApiProperty({ example: trustAnchorExample.notAfter })
  notAfter!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The subject key identifier, base64url: the value a DCQL `aki` trusted authority names (OpenID4VP 1.0 §6.1.1).',
    example: trustAnchorExample.subjectKeyIdentifier,
  })
  subjectKeyIdentifier!: string | null;

  @ApiProperty({ description: 'The certificate, PEM.', example: trustAnchorExample.certificate })
  certificate!: string;

  @ApiProperty({ example: trustAnchorExample.createdAt })
  createdAt!: string;
}

export class TrustAnchorPageDto extends NumberedPageDto(TrustAnchorDto) {}

export const sortFields = ['subject', 'notAfter', 'createdAt'] as const;
export type SortField = (typeof sortFields)[number];
const sortValues = sortValuesOf(sortFields);

export class ListTrustAnchorsQuery extends PageQuery {
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
