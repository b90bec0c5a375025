import { ApiProperty } from '@nestjs/swagger';

export class IssuedCredentialDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The signed credential.',
  })
  verifiableCredential!: Record<string, unknown>;
}

export class VerificationDto {
  @ApiProperty({ enum: [true] })
  verified!: true;

  @ApiProperty({ example: ['proof', 'issuer', 'validity'], description: 'The checks made.' })
  checks!: string[];

  @ApiProperty({ type: [Object], description: 'Each proof checked (without its value).' })
  proofs!: Record<string, unknown>[];

  @ApiProperty({ type: [String], example: [] })
  warnings!: string[];
}
