import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { errorCodes, type ErrorCode } from './error-codes.js';

export class FieldErrorDto {
  @ApiProperty({
    description: 'The field, query parameter or header that is wrong.',
    example: 'id',
  })
  field: string;

  @ApiProperty({
    example: 'must be 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit',
  })
  message: string;
}

/** One failed check of a credential verification (VC Data Model 2.0 §7.1 `problemDetails`). */
export class CheckProblemDto {
  @ApiProperty({
    format: 'uri',
    example: 'https://w3id.org/security#PROOF_VERIFICATION_ERROR',
  })
  type: string;

  @ApiProperty({
    enum: ['proof', 'issuer', 'validity', 'status', 'holder', 'challenge', 'domain', 'credential'],
    example: 'proof',
  })
  check: string;

  @ApiProperty({ example: 'Proof verification failed' })
  title: string;

  @ApiProperty({ example: 'proof (eddsa-rdfc-2022): Invalid signature.' })
  detail: string;
}

/** RFC 9457 problem details, as every error of the API is answered. */
export class ProblemDto {
  @ApiProperty({
    description: 'A URI naming the problem type; GET it for a description.',
    format: 'uri',
    example: 'http://localhost:8080/ctrl/problems/tenant-not-found',
  })
  type: string;

  @ApiProperty({ example: 'Tenant not found' })
  title: string;

  @ApiProperty({ type: 'integer', description: 'The HTTP status, repeated.', example: 404 })
  status: number;

  @ApiProperty({
    description: 'What happened, for a person.',
    example: "No tenant with id 'acme'.",
  })
  detail: string;

  @ApiProperty({ description: 'The path of the request.', example: '/ctrl/api/v1.0/did' })
  instance: string;

  @ApiProperty({
    description: 'Stable, machine-readable error code.',
    enum: errorCodes,
    example: 'TENANT_NOT_FOUND',
  })
  code: ErrorCode;

  @ApiPropertyOptional({
    description: 'The invalid inputs, when there are any.',
    type: [FieldErrorDto],
  })
  errors?: FieldErrorDto[];

  @ApiPropertyOptional({
    description: 'With `CREDENTIAL_NOT_VERIFIED` only: always false.',
    enum: [false],
  })
  verified?: false;

  @ApiPropertyOptional({
    description: 'With `CREDENTIAL_NOT_VERIFIED` only: the checks that were made.',
    type: [String],
    example: ['proof', 'issuer', 'validity', 'status'],
  })
  checks?: string[];

  @ApiPropertyOptional({
    description: 'With `CREDENTIAL_NOT_VERIFIED` only: every check that failed.',
    type: [CheckProblemDto],
  })
  problemDetails?: CheckProblemDto[];
}
