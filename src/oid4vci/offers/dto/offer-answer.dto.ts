import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { NumberedPageDto } from '../../../common/page-dto.js';
import { credentialIssuerId } from '../../../tenancy/credential-issuer.js';
import { formats, type CredentialFormat } from '../../dto/credential-configuration.dto.js';
import { configurationExample } from '../../dto/credential-configuration.examples.js';
import { type OfferGrant, type OfferStatus } from '../offer.entity.js';
import { credentialOfferOf, offerLinkOf, offerUriOf } from '../offer.rules.js';

export const offerStatuses = [
  'offered',
  'accepted',
  'issued',
  'expired',
  'failed',
  'withdrawn',
] as const satisfies readonly OfferStatus[];

const exampleIssuer = credentialIssuerId('http://localhost:8080', 'acme');
const exampleOffer = credentialOfferOf(
  exampleIssuer,
  configurationExample.id,
  'Wf3nGqvGxJ5oB1m3Zz2q0yQyN3cQ2a9vJ8p4cQk1XbE',
  { length: 6, input_mode: 'numeric' },
);

export const offerExample = {
  id: '0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f',
  status: 'offered' as OfferStatus,
  credentialConfigurationId: configurationExample.id,
  format: configurationExample.format,
  doctype: null,
  credentialIds: [] as string[],
  txCodeRequired: true,
  grant: 'pre-authorized_code' as OfferGrant,
  notification: null,
  expiresAt: '2026-11-25T10:10:00.000Z',
  createdAt: '2026-11-25T10:00:00.000Z',
  updatedAt: '2026-11-25T10:00:00.000Z',
};

export const createdOfferExample = {
  id: offerExample.id,
  status: 'offered' as OfferStatus,
  credentialOffer: exampleOffer,
  credentialOfferUri: offerLinkOf(
    exampleOffer,
    offerUriOf(exampleIssuer, 'c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM'),
    false,
  ),
  txCode: '493817',
  expiresAt: offerExample.expiresAt,
};

/** The create answer: the only one that carries the link, the code and the transaction code. */
export class CreatedOfferDto {
  @ApiProperty({ format: 'uuid', example: createdOfferExample.id })
  id!: string;

  @ApiProperty({ enum: ['offered'], example: 'offered' })
  status!: OfferStatus;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The Credential Offer object (OpenID4VCI 1.0 §4.1.1).',
    example: createdOfferExample.credentialOffer,
  })
  credentialOffer!: Record<string, unknown>;

  @ApiProperty({
    description:
      'The link for the wallet (a QR code or a button): `openid-credential-offer://?credential_offer_uri=…`, or with `byValue` `…?credential_offer=…`.',
    example: createdOfferExample.credentialOfferUri,
  })
  credentialOfferUri!: string;

  @ApiPropertyOptional({
    description:
      'The transaction code, when one was asked for: answered this once, to be sent to the user by another channel.',
    example: createdOfferExample.txCode,
  })
  txCode?: string;

  @ApiProperty({ example: createdOfferExample.expiresAt })
  expiresAt!: string;
}

/** An offer as it stands: never its code, its transaction code or its claims. */
export class OfferDto {
  @ApiProperty({ format: 'uuid', example: offerExample.id })
  id!: string;

  @ApiProperty({
    enum: offerStatuses,
    description: 'An open offer past `expiresAt` reads as `expired`.',
    example: offerExample.status,
  })
  status!: OfferStatus;

  @ApiProperty({ example: offerExample.credentialConfigurationId })
  credentialConfigurationId!: string;

  @ApiProperty({
    enum: formats,
    description: 'The format of the configuration as it was offered.',
    example: offerExample.format,
  })
  format!: CredentialFormat;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'mso_mdoc: the mdoc document type offered; null for the other formats.',
    example: null,
  })
  doctype!: string | null;

  @ApiProperty({
    type: [String],
    description: 'The credentials issued for the offer.',
    example: [],
  })
  credentialIds!: string[];

  @ApiProperty({ example: true })
  txCodeRequired!: boolean;

  @ApiProperty({
    enum: ['pre-authorized_code', 'authorization_code'],
    example: 'pre-authorized_code',
  })
  grant!: OfferGrant;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'The wallet’s last notification event (`credential_accepted`, …).',
    example: null,
  })
  notification!: string | null;

  @ApiProperty({ example: offerExample.expiresAt })
  expiresAt!: string;

  @ApiProperty({ example: offerExample.createdAt })
  createdAt!: string;

  @ApiProperty({ example: offerExample.updatedAt })
  updatedAt!: string;
}

export class OfferPageDto extends NumberedPageDto(OfferDto) {}
