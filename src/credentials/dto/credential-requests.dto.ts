import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  Equals,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { statusPurposes, type StatusPurpose } from '../status/bitstring.js';
import { signingCryptosuites, type SigningCryptosuite } from '../data-integrity.js';
import { VerifyOptionsDto } from './verify-options.dto.js';

export const credentialExample = {
  '@context': [
    'https://www.w3.org/ns/credentials/v2',
    'https://www.w3.org/ns/credentials/examples/v2',
  ],
  type: ['VerifiableCredential', 'AlumniCredential'],
  name: 'Alumni Credential',
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
};

const exampleDid = 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';

const exampleStatusList =
  'http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';

export const issuedExample = {
  ...credentialExample,
  id: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
  issuer: exampleDid,
  // The entry every issued credential gets by default (CREDENTIAL_STATUS_DEFAULT, revocation).
  credentialStatus: {
    id: `${exampleStatusList}#94567`,
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: '94567',
    statusListCredential: exampleStatusList,
  },
  proof: {
    type: 'DataIntegrityProof',
    created: '2026-11-25T10:00:00Z',
    verificationMethod: `${exampleDid}#${exampleDid.slice('did:key:'.length)}`,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'assertionMethod',
    proofValue:
      'z2YwC8z3ap7yx1nZYCg4L3j3ApHsF8kgPdSb5xoS1VR7vPG3F561B52hYnQF9iseabecm3ijx4K1FBTQsCZahKZme',
  },
};

/**
 * What the verify examples send: a credential that verifies as given, anywhere. It is signed with the
 * key of the W3C Data Integrity EdDSA test vectors (`keyPair.json`, whose DID `exampleDid` is), and has
 * no status entry, whose list would have to exist on the service that checks it.
 */
export const verifiableExample = {
  ...credentialExample,
  id: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
  issuer: exampleDid,
  proof: {
    type: 'DataIntegrityProof',
    created: '2026-11-25T10:00:00Z',
    verificationMethod: `${exampleDid}#${exampleDid.slice('did:key:'.length)}`,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'assertionMethod',
    proofValue:
      'z2nJTYHFr8PYrL4RkFWg78W5kwQuRiw3gfuS5yCb3N4cxhBR61AoP5rk7igMvGgi9sBedTyrUxtnfyxtm4xYmDCQ2',
  },
};

export const verificationExample = {
  verified: true,
  checks: ['proof', 'issuer', 'validity', 'status'],
  issuer: exampleDid,
  proofs: [
    {
      type: 'DataIntegrityProof',
      created: '2026-11-25T10:00:00Z',
      verificationMethod: issuedExample.proof.verificationMethod,
      cryptosuite: 'eddsa-rdfc-2022',
      proofPurpose: 'assertionMethod',
    },
  ],
  warnings: [],
};

export class IssueOptionsDto {
  @ApiPropertyOptional({ enum: signingCryptosuites, default: signingCryptosuites[0] })
  @IsOptional()
  @IsIn(signingCryptosuites, { message: `must be one of ${signingCryptosuites.join(', ')}` })
  cryptosuite?: SigningCryptosuite;

  @ApiPropertyOptional({ enum: ['DataIntegrityProof'], description: 'The only proof type issued.' })
  @IsOptional()
  @Equals('DataIntegrityProof', { message: "must be 'DataIntegrityProof'" })
  type?: string;

  @ApiPropertyOptional({
    description: 'The credential `id` when the credential has none (else a `urn:uuid:` is made).',
    example: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
  })
  @IsOptional()
  @IsString()
  @Matches(/^[a-zA-Z][a-zA-Z0-9+.-]*:[^\s\p{Cc}]+$/u, { message: 'must be an absolute URI' })
  credentialId?: string;

  @ApiPropertyOptional({
    description:
      'Status entries the service attaches: `{type: "BitstringStatusListEntry", statusPurpose: "revocation" | "suspension"}` or an array of them; `[]` for none. Absent: the deployment default (a revocation entry). The credential lists revocation before suspension.',
    example: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
    oneOf: [
      { type: 'object', additionalProperties: true },
      { type: 'array', items: { type: 'object', additionalProperties: true } },
    ],
  })
  @IsOptional()
  credentialStatus?: unknown;
}

export class StatusRequestDto {
  @ApiPropertyOptional({
    enum: ['BitstringStatusListEntry'],
    description:
      "The entry's type; absent: the credential's own list is meant (a dc+sd-jwt or mso_mdoc credential's Token Status List, revocation only).",
  })
  @IsOptional()
  @Equals('BitstringStatusListEntry', { message: "must be 'BitstringStatusListEntry'" })
  type?: string;

  @ApiProperty({ enum: statusPurposes })
  @IsIn(statusPurposes, { message: `must be one of ${statusPurposes.join(', ')}` })
  statusPurpose!: StatusPurpose;
}

export class UpdateStatusDto {
  @ApiProperty({ example: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33' })
  @IsString()
  @MaxLength(2048)
  credentialId!: string;

  @ApiProperty({ type: StatusRequestDto })
  @ValidateNested()
  @Type(() => StatusRequestDto)
  @IsObject()
  credentialStatus!: StatusRequestDto;

  @ApiPropertyOptional({
    description:
      'true (default) sets the bit, false clears it (suspension only: a revocation is final).',
    default: true,
  })
  @IsOptional()
  @IsBoolean()
  status?: boolean;
}

export class IssueCredentialDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      "A VC Data Model 2.0 (or 1.1) credential without `proof` or `credentialStatus`; `issuer` absent or the tenant's DID.",
    example: credentialExample,
  })
  @IsObject()
  credential!: Record<string, unknown>;

  @ApiPropertyOptional({ type: IssueOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => IssueOptionsDto)
  options?: IssueOptionsDto;
}

export class VerifyCredentialDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'A credential secured with one or more Data Integrity proofs (a set or a chain).',
  })
  @IsObject()
  verifiableCredential!: Record<string, unknown>;

  @ApiPropertyOptional({ type: VerifyOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => VerifyOptionsDto)
  options?: VerifyOptionsDto;
}
