import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { NumberedPageDto } from '../../common/page-dto.js';
import { chainLimits } from '../../x509/certificate.js';
import {
  certificatePurposes,
  certificateSources,
  certificateStatuses,
} from '../tenant-certificate.entity.js';
import { certificateExamples } from './certificate-examples.js';

const example = certificateExamples.certificate;

export class CertificateDto {
  @ApiProperty({ format: 'uuid', example: example.id })
  id!: string;

  @ApiProperty({
    enum: certificateStatuses,
    description:
      '`active`: the chain the tenant’s ES256 signatures carry in `x5c`; `superseded`: replaced by a later one; `expired`: was active until its `notAfter`.',
    example: example.status,
  })
  status!: (typeof certificateStatuses)[number];

  @ApiProperty({
    enum: certificateSources,
    description:
      '`authority`: issued by the service’s certificate authority; `imported`: a chain the tenant imported.',
    example: example.source,
  })
  source!: (typeof certificateSources)[number];

  @ApiProperty({
    enum: certificatePurposes,
    description:
      '`x5c`: the chain of the tenant’s ES256 JWS (HAIP 1.0); `document_signer`: the mdoc document signer chain of its `x5chain` (ISO/IEC 18013-5 Annex B). At most one of each is active.',
    example: example.purpose,
  })
  purpose!: (typeof certificatePurposes)[number];

  @ApiProperty({ description: 'The leaf’s subject (RFC 4514).', example: example.subject })
  subject!: string;

  @ApiProperty({
    type: [String],
    description: 'The leaf’s subjectAltName dNSName entries.',
    example: example.dnsNames,
  })
  dnsNames!: string[];

  @ApiProperty({
    type: [String],
    description: 'The leaf’s subjectAltName URI entries.',
    example: example.uris,
  })
  uris!: string[];

  @ApiProperty({ description: 'The leaf’s issuer (RFC 4514).', example: example.issuer })
  issuer!: string;

  @ApiProperty({ description: 'The leaf’s serial number, hex.', example: example.serialNumber })
  serialNumber!: string;

  @ApiProperty({ format: 'date-time', example: example.notBefore })
  notBefore!: string;

  @ApiProperty({ format: 'date-time', example: example.notAfter })
  notAfter!: string;

  @ApiProperty({
    type: [String],
    description:
      'The chain as a JOSE `x5c` (RFC 7515 §4.1.6): standard base64 DER, the leaf first, without the root (HAIP 1.0).',
    example: example.x5c,
  })
  x5c!: string[];

  @ApiProperty({ format: 'date-time', example: example.createdAt })
  createdAt!: string;
}

export class CertificatePageDto extends NumberedPageDto(CertificateDto) {}

export class CreateCsrDto {
  @ApiPropertyOptional({
    enum: certificatePurposes,
    description:
      'What the certificate will be for: `x5c` (the tenant’s JWS chain, the default; the names below default to the tenant’s issuer URL and host) or `document_signer` (its mdocs: the subject gets `country`, the request asks for extended key usage 1.0.18013.5.1.2, and no names unless given).',
  })
  @IsOptional()
  @IsIn(certificatePurposes)
  purpose?: (typeof certificatePurposes)[number];

  @ApiPropertyOptional({
    description: 'The subject’s common name; default: the tenant id.',
    example: 'acme',
    maxLength: 64,
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  subject?: string;

  @ApiPropertyOptional({
    description:
      'The subject’s countryName (ISO 3166-1 alpha-2); default for `document_signer`: the operator’s `MDOC_ISSUER_COUNTRY` (it must be the IACA’s), none for `x5c`.',
    example: 'DE',
    pattern: '^[A-Z]{2}$',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: '$property must be an ISO 3166-1 alpha-2 code such as DE' })
  country?: string;

  @ApiPropertyOptional({
    type: [String],
    description:
      'subjectAltName dNSName entries; default for `x5c`: the host of the tenant’s credential issuer identifier.',
    example: ['issuer.example.com'],
    maxItems: 10,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(253, { each: true })
  @Matches(/^[A-Za-z0-9*]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/, {
    each: true,
    message: 'each value of $property must be a DNS name',
  })
  dnsNames?: string[];

  @ApiPropertyOptional({
    type: [String],
    description:
      'subjectAltName URI entries; default for `x5c`: the tenant’s credential issuer identifier.',
    example: ['https://issuer.example.com/ctrl/oid4vci/acme'],
    maxItems: 10,
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  // IA5String (RFC 5280 §4.2.1.6): ASCII only, as URIs are once encoded (RFC 3987 §3.1).
  @Matches(/^[a-zA-Z][a-zA-Z0-9+.-]*:[\x21-\x7e]+$/, {
    each: true,
    message: 'each value of $property must be a URI in ASCII (percent-encoded)',
  })
  uris?: string[];
}

export class CsrDto {
  @ApiProperty({
    description:
      'A PKCS #10 certificate signing request (PEM) for the tenant’s ES256 key, signed by it.',
    example: certificateExamples.csr,
  })
  csr!: string;
}

export class ImportCertificateDto {
  @ApiProperty({
    description: `PEM certificates, the leaf (for the tenant’s ES256 key) first, then its intermediates; a root at the end is accepted and left out of \`x5c\`. At most ${chainLimits.certificates} certificates, ${chainLimits.pemCharacters} characters.`,
    example: certificateExamples.chainPem,
    maxLength: chainLimits.pemCharacters,
  })
  @IsString()
  @MaxLength(chainLimits.pemCharacters)
  chain!: string;

  @ApiPropertyOptional({
    enum: certificatePurposes,
    description:
      'What the chain is for: `x5c` (the tenant’s JWS chain, the default: the leaf names the issuer URL or host) or `document_signer` (its mdocs: the leaf has the ISO/IEC 18013-5 Annex B.1.4 profile).',
  })
  @IsOptional()
  @IsIn(certificatePurposes)
  purpose?: (typeof certificatePurposes)[number];
}

export class AuthorityCertificateDto {
  @ApiProperty({
    description:
      'The root certificate of the service’s certificate authority (PEM): the trust anchor wallets and verifiers configure.',
    example: certificateExamples.authorityPem,
  })
  certificate!: string;
}

export class IssueCertificateDto {
  @ApiPropertyOptional({
    enum: certificatePurposes,
    default: 'x5c',
    description:
      'What the certificate is for: `x5c` (the tenant’s JWS chain, the default) or `document_signer` (its mdocs, ISO/IEC 18013-5 Annex B.1.4).',
  })
  @IsOptional()
  @IsIn(certificatePurposes)
  purpose?: (typeof certificatePurposes)[number];
}
