import { ApiProperty } from '@nestjs/swagger';

const exampleDid = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

/** A whole DID answer, for the OpenAPI examples. */
export const didExample = {
  id: exampleDid,
  public: true,
  verkey: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
  method: 'key',
  keyType: 'ed25519',
  publicKeyMultibase: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  createdAt: '2025-01-31T09:30:00.000Z',
} as const;

export class DidDto {
  @ApiProperty({ description: 'The DID.', example: exampleDid })
  id: string;

  @ApiProperty({
    description:
      'Anyone can resolve this DID without asking this service (always true for did:key).',
    example: true,
  })
  public: boolean;

  @ApiProperty({
    description: 'base58btc of the raw 32-byte Ed25519 public key.',
    example: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
  })
  verkey: string;

  @ApiProperty({ description: 'DID method.', enum: ['key'], example: 'key' })
  method: 'key';

  @ApiProperty({ description: 'Key type of the DID.', enum: ['ed25519'], example: 'ed25519' })
  keyType: 'ed25519';

  @ApiProperty({
    description: 'Multibase (base58btc) of the multicodec Ed25519 public key.',
    example: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  })
  publicKeyMultibase: string;

  @ApiProperty({
    description: 'When the DID was made (with its tenant).',
    format: 'date-time',
    example: '2025-01-31T09:30:00.000Z',
  })
  createdAt: string;
}
