import { ApiProperty } from '@nestjs/swagger';
import { base58 } from '@scure/base';
import { ed25519DidDocument } from '../did-key.js';

const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

/** The document of the example DID, derived as the service derives every document (OpenAPI example). */
export const didDocumentExample = ed25519DidDocument(
  base58.decode('4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS'),
);

export class VerificationMethodDto {
  @ApiProperty({ example: `${did}#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp` })
  id: string;

  @ApiProperty({ enum: ['Ed25519VerificationKey2020', 'X25519KeyAgreementKey2020'] })
  type: string;

  @ApiProperty({ example: did })
  controller: string;

  @ApiProperty({ example: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' })
  publicKeyMultibase: string;
}

/** The W3C DID document the did:key method defines for an Ed25519 key. */
export class DidDocumentDto {
  @ApiProperty({
    name: '@context',
    type: [String],
    example: [
      'https://www.w3.org/ns/did/v1',
      'https://w3id.org/security/suites/ed25519-2020/v1',
      'https://w3id.org/security/suites/x25519-2020/v1',
    ],
  })
  '@context': string[];

  @ApiProperty({ example: did })
  id: string;

  @ApiProperty({ type: [VerificationMethodDto] })
  verificationMethod: VerificationMethodDto[];

  @ApiProperty({ type: [String] })
  authentication: string[];

  @ApiProperty({ type: [String] })
  assertionMethod: string[];

  @ApiProperty({ type: [String] })
  capabilityDelegation: string[];

  @ApiProperty({ type: [String] })
  capabilityInvocation: string[];

  @ApiProperty({ type: [VerificationMethodDto] })
  keyAgreement: VerificationMethodDto[];
}
