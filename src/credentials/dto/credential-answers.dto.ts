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

  @ApiProperty({
    example: ['proof', 'issuer', 'validity', 'status'],
    description:
      'The checks made: those `options.checks` asked for (all when absent), always `proof` and `issuer`; `status` only when the proof and issuer checks passed.',
  })
  checks!: string[];

  @ApiProperty({
    description:
      "The credential's issuer, whose key made a proof: one of the trusted issuers when a list applied, else any issuer whose key resolves.",
    example: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2',
  })
  issuer!: string;

  @ApiProperty({ type: [Object], description: 'Each proof checked (without its value).' })
  proofs!: Record<string, unknown>[];

  @ApiProperty({ type: [String], example: [] })
  warnings!: string[];
}

export class PresentedCredentialDto {
  @ApiProperty({ required: false, example: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33' })
  id?: string;

  @ApiProperty({
    required: false,
    description: "The credential's issuer.",
    example: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2',
  })
  issuer?: string;

  @ApiProperty({ type: [Object], description: 'Its proofs (without their values).' })
  proofs!: Record<string, unknown>[];
}

export class PresentationVerificationDto {
  @ApiProperty({ enum: [true] })
  verified!: true;

  @ApiProperty({ example: ['proof', 'holder', 'challenge', 'domain', 'credential'] })
  checks!: string[];

  @ApiProperty({ type: [Object], description: "The presentation's proofs (without their values)." })
  proofs!: Record<string, unknown>[];

  @ApiProperty({ type: [PresentedCredentialDto] })
  credentials!: PresentedCredentialDto[];

  @ApiProperty({ type: [String], example: [] })
  warnings!: string[];
}
