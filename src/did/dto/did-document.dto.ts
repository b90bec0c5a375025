import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { base58 } from '@scure/base';
import { IsIn, IsOptional } from 'class-validator';
import {
  didDocumentFormats,
  ed25519DidDocument,
  ed25519MultikeyDidDocument,
  type DidDocumentFormat,
} from '../did-key.js';

const did = 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

/** The document of the example DID, derived as the service derives every document (OpenAPI example). */
const examplePublicKey = base58.decode('4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS');
export const didDocumentExample = ed25519DidDocument(examplePublicKey);
export const multikeyDidDocumentExample = ed25519MultikeyDidDocument(examplePublicKey);

export class DidDocumentQuery {
  @ApiPropertyOptional({
    description:
      "`multikey`: the did:key specification's current form (one `Multikey` verification method, " +
      'context `https://w3id.org/security/multikey/v1`, no key agreement key). `ed25519-2020` (the ' +
      'default): Ed25519VerificationKey2020 with an X25519KeyAgreementKey2020 key agreement key.',
    enum: didDocumentFormats,
    default: 'ed25519-2020',
    example: 'multikey',
  })
  @IsOptional()
  @IsIn(didDocumentFormats, { message: `must be one of ${didDocumentFormats.join(', ')}` })
  format?: DidDocumentFormat;
}

export class VerificationMethodDto {
  @ApiProperty({ example: `${did}#z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp` })
  id: string;

  @ApiProperty({ enum: ['Ed25519VerificationKey2020', 'X25519KeyAgreementKey2020', 'Multikey'] })
  type: string;

  @ApiProperty({ example: did })
  controller: string;

  @ApiProperty({ example: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' })
  publicKeyMultibase: string;
}

/** The W3C DID document the did:key method defines for an Ed25519 key, in either form. */
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

  @ApiPropertyOptional({
    type: [VerificationMethodDto],
    description: 'In the `ed25519-2020` form only.',
  })
  keyAgreement?: VerificationMethodDto[];
}
