import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

const wholeNumber = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value,
  );

export const credentialStates = ['active', 'suspended', 'revoked'] as const;
export type CredentialState = (typeof credentialStates)[number];

export class ListCredentialsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Page number, from 0.',
    default: 0,
    minimum: 0,
    example: 0,
  })
  @wholeNumber()
  @IsOptional()
  @Max(100_000_000, { message: 'must be at most 100000000' })
  @Min(0, { message: 'must be 0 or more' })
  @IsInt({ message: 'must be a whole number' })
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Page size.',
    default: 20,
    minimum: 1,
    maximum: 100,
    example: 20,
  })
  @wholeNumber()
  @IsOptional()
  @Max(100, { message: 'must be 1-100' })
  @Min(1, { message: 'must be 1-100' })
  @IsInt({ message: 'must be a whole number' })
  size?: number;

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

  @ApiProperty({ example: 'eddsa-rdfc-2022' })
  cryptosuite!: string;

  @ApiProperty({ example: '2026-11-25T10:00:00.000Z' })
  issuedAt!: string;

  @ApiProperty({ enum: credentialStates, example: 'active' })
  state!: CredentialState;

  @ApiProperty({ type: [StatusStateDto] })
  status!: StatusStateDto[];
}

export class IssuedCredentialPageDto {
  @ApiProperty({ type: [IssuedCredentialRecordDto] })
  content!: IssuedCredentialRecordDto[];

  @ApiProperty({ type: 'integer', example: 0 })
  number!: number;

  @ApiProperty({ type: 'integer', example: 20 })
  size!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  totalElements!: number;

  @ApiProperty({ type: 'integer', example: 1 })
  totalPages!: number;
}
