import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPageQuery } from '../../common/cursor-page.js';
import { CursorPageDto } from '../../common/page-dto.js';

export const credentialStates = ['active', 'suspended', 'revoked'] as const;
export type CredentialState = (typeof credentialStates)[number];

export const credentialFormats = ['ldp_vc', 'dc+sd-jwt', 'mso_mdoc'] as const;
export type CredentialFormat = (typeof credentialFormats)[number];

export class ListCredentialsQuery extends CursorPageQuery {
  @ApiPropertyOptional({
    description: 'Only credentials with this type.',
    example: 'AlumniCredential',
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  type?: string;

  @ApiPropertyOptional({
    description: 'Only credentials in this state (revoked wins over suspended).',
    enum: credentialStates,
    example: 'revoked',
  })
  @IsOptional()
  @IsIn(credentialStates, { message: `must be one of ${credentialStates.join(', ')}` })
  status?: CredentialState;
}

export class StatusStateDto {
  @ApiProperty({ enum: ['revocation', 'suspension'], example: 'revocation' })
  statusPurpose!: string;

  @ApiProperty({
    example: 'http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10',
  })
  statusListCredential!: string;

  @ApiProperty({ example: '94567' })
  statusListIndex!: string;

  @ApiProperty({ description: 'Whether the bit is set (revoked, or suspended).', example: false })
  set!: boolean;
}

export class IssuedCredentialRecordDto {
  @ApiProperty({ example: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33' })
  id!: string;

  @ApiProperty({ example: ['VerifiableCredential', 'AlumniCredential'] })
  types!: string[];

  @ApiProperty({
    description:
      'The Data Integrity cryptosuite (`ldp_vc`), or the JOSE `alg` (`dc+sd-jwt`; `ES256` for `mso_mdoc`, COSE -7).',
    example: 'eddsa-rdfc-2022',
  })
  cryptosuite!: string;

  @ApiProperty({
    enum: credentialFormats,
    description: 'The format (OpenID4VCI 1.0 Appendix A).',
    example: 'ldp_vc',
  })
  format!: CredentialFormat;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'mso_mdoc: the mdoc document type (also its one `types` entry); null otherwise.',
    example: null,
  })
  doctype!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The OpenID4VCI offer it was issued for; null for `POST /credentials/issue`.',
    example: null,
  })
  offerId!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The credential configuration of that offer; null for `POST /credentials/issue`.',
    example: null,
  })
  configurationId!: string | null;

  @ApiProperty({ example: '2026-11-25T10:00:00.000Z' })
  issuedAt!: string;

  @ApiProperty({ enum: credentialStates, example: 'active' })
  state!: CredentialState;

  @ApiProperty({ type: [StatusStateDto] })
  status!: StatusStateDto[];
}

export class IssuedCredentialPageDto extends CursorPageDto(IssuedCredentialRecordDto) {}
