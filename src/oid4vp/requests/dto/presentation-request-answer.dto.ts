import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { NumberedPageDto } from '../../../common/page-dto.js';
import {
  type PresentationRequestStatus,
  type PresentedCredentialSummary,
  type ResponseMode,
} from '../presentation-request.entity.js';
import { dcqlQueryExample, responseModes } from './create-presentation-request.dto.js';
import {
  createdRequestExample,
  exampleClientId,
  exampleDidClientId,
  exampleLink,
  failedRequestExample,
  requestExample,
  signedDcApiRequestExample,
  verifiedMdocRequestExample,
  verifiedRequestExample,
} from './presentation-request.examples.js';

export const requestStatuses = [
  'pending',
  'verified',
  'failed',
  'expired',
] as const satisfies readonly PresentationRequestStatus[];

/** What the relying party's page passes to `navigator.credentials.get` (OpenID4VP 1.0 appendix A). */
export class DcApiRequestDto {
  @ApiProperty({
    enum: ['openid4vp-v1-signed', 'openid4vp-v1-unsigned'],
    description:
      '`openid4vp-v1-signed` when the tenant’s client id is x509 (`x509_hash`, `x509_san_dns`; HAIP 1.0 §5), `openid4vp-v1-unsigned` otherwise.',
    example: 'openid4vp-v1-signed',
  })
  protocol!: 'openid4vp-v1-signed' | 'openid4vp-v1-unsigned';

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'Signed: `{request}`, the request object (ES256, `x5c`) with `client_id` and `expected_origins`. Unsigned: `response_type`, `response_mode`, `nonce`, `dcql_query` and `client_metadata` (with the encryption key for dc_api.jwt), no `client_id`.',
    example: signedDcApiRequestExample.data,
  })
  data!: Record<string, unknown>;
}

/** The create answer: the link the wallet opens. */
export class CreatedPresentationRequestDto {
  @ApiProperty({ format: 'uuid', example: createdRequestExample.id })
  id!: string;

  @ApiProperty({ enum: ['pending'], example: 'pending' })
  status!: PresentationRequestStatus;

  @ApiProperty({ enum: responseModes, example: 'direct_post' })
  responseMode!: ResponseMode;

  @ApiProperty({
    description: `The tenant as verifier (OpenID4VP 1.0 §5.9.3), as \`clientIdPrefix\` asked: \`x509_hash:<SHA-256 of the leaf certificate>\`, \`x509_san_dns:<host>\` or \`decentralized_identifier:<DID>\` (for example \`${exampleDidClientId}\`). A KB-JWT's \`aud\` must be all of it.`,
    example: exampleClientId,
  })
  clientId!: string;

  @ApiPropertyOptional({
    description:
      'Redirect requests: the link for the wallet (a QR code or a button): `openid4vp://?client_id=…&request_uri=…`. Absent for a DC API request.',
    example: exampleLink,
  })
  authorizationRequestUri?: string;

  @ApiPropertyOptional({
    type: DcApiRequestDto,
    description:
      'DC API requests: what the relying party’s page passes to `navigator.credentials.get({digital: {requests: [dcApiRequest]}})`.',
  })
  dcApiRequest?: DcApiRequestDto;

  @ApiProperty({ example: createdRequestExample.expiresAt })
  expiresAt!: string;
}

/** Why a request failed: a stable code of docs/oid4vp.md and a sentence a person understands. */
export class PresentationOutcomeDto {
  @ApiProperty({
    description:
      'A check that an answer bound to this request (its holder proof names the request’s nonce and client id) failed, or `too_many_refused_answers` after 10 answers not bound to it were refused (docs/oid4vp.md).',
    example: failedRequestExample.outcome.code,
  })
  code!: string;

  @ApiProperty({ example: failedRequestExample.outcome.reason })
  reason!: string;
}

/** The X.509 chain that vouched for an SD-JWT VC's `x5c` signature (HAIP 1.0). */
export class PresentedCertificateChainDto {
  @ApiProperty({
    description: 'The subject of the leaf certificate whose key signed the credential.',
    example: 'CN=Globex Issuer, O=Globex, C=NL',
  })
  leafSubject!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'The subject of the tenant’s trust anchor the chain ended at; null when the tenant has no anchors and any valid chain was accepted.',
    example: 'CN=Example Issuing CA, O=Example, C=NL',
  })
  anchorSubject!: string | null;
}

/** One verified credential of a credential query. */
export class PresentationRequestCredentialDto {
  @ApiProperty({ enum: ['dc+sd-jwt', 'ldp_vc', 'mso_mdoc'], example: 'dc+sd-jwt' })
  format!: PresentedCredentialSummary['format'];

  @ApiProperty({
    description:
      'Who issued it (`iss`, or the issuer DID; for an mdoc the subject of its document signer certificate).',
    example: verifiedRequestExample.presented.alumni[0].issuer,
  })
  issuer!: string;

  @ApiPropertyOptional({
    description: 'dc+sd-jwt: its type.',
    example: verifiedRequestExample.presented.alumni[0].vct,
  })
  vct?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'ldp_vc: its types.',
    example: ['VerifiableCredential', 'AlumniCredential'],
  })
  types?: string[];

  @ApiPropertyOptional({
    description: 'mso_mdoc: its doctype (ISO/IEC 18013-5).',
    example: verifiedMdocRequestExample.presented.mdl[0].doctype,
  })
  doctype?: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'RFC 7638 SHA-256 thumbprint of the holder’s key (an mdoc’s device key); null without holder binding.',
    example: verifiedRequestExample.presented.alumni[0].holderKeyThumbprint,
  })
  holderKeyThumbprint!: string | null;

  @ApiProperty({ enum: ['valid', 'revoked', 'suspended', 'none'], example: 'valid' })
  status!: PresentedCredentialSummary['status'];

  @ApiPropertyOptional({
    type: PresentedCertificateChainDto,
    description:
      'dc+sd-jwt signed by an `x5c` certificate, or an mdoc (its `x5chain` up to an IACA): the chain that vouched for it.',
  })
  certificateChain?: PresentedCertificateChainDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'The disclosed claims only (an mdoc’s: the presented elements by namespace); absent once erased (see `claimsErasedAt`).',
    example: verifiedRequestExample.presented.alumni[0].claims,
  })
  claims?: Record<string, unknown>;
}

/** A request as it stands: never its nonce, state or keys. */
export class PresentationRequestDto {
  @ApiProperty({ format: 'uuid', example: requestExample.id })
  id!: string;

  @ApiProperty({
    enum: requestStatuses,
    description: 'A pending request past `expiresAt` reads as `expired`.',
    example: 'pending',
  })
  status!: PresentationRequestStatus;

  @ApiProperty({ enum: responseModes, example: 'direct_post' })
  responseMode!: ResponseMode;

  @ApiProperty({ enum: ['get', 'post'], example: 'get' })
  requestUriMethod!: 'get' | 'post';

  @ApiProperty({ type: 'object', additionalProperties: true, example: dcqlQueryExample })
  dcqlQuery!: Record<string, unknown>;

  @ApiProperty({ type: [String], nullable: true, example: null })
  trustedIssuers!: string[] | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Same-device flows: where the wallet sends the person’s browser once verified.',
    example: null,
  })
  redirectUri!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      'Once verified with a `redirectUri`: the SHA-256 (base64url) of the `response_code` appended to it. Whoever arrives there with the code that hashes to this is the browser of the device that answered.',
    example: null,
  })
  responseCodeSha256!: string | null;

  @ApiProperty({
    description: 'The client id the request was made with, prefix included (OpenID4VP 1.0 §5.9.3).',
    example: exampleClientId,
  })
  clientId!: string;

  @ApiProperty({
    type: [String],
    nullable: true,
    description:
      'DC API requests: the origins its answer may come from; null for redirect requests.',
    example: null,
  })
  expectedOrigins!: string[] | null;

  @ApiPropertyOptional({
    description: 'Redirect requests, while pending only.',
    example: exampleLink,
  })
  authorizationRequestUri?: string;

  @ApiPropertyOptional({
    type: DcApiRequestDto,
    description:
      'DC API requests, while pending, when one request is read (not in the list): the request for `navigator.credentials.get`, signed anew; absent when the tenant’s certificate no longer stands for the client id.',
  })
  dcApiRequest?: DcApiRequestDto;

  @ApiProperty({ example: requestExample.createdAt })
  createdAt!: string;

  @ApiProperty({ example: requestExample.expiresAt })
  expiresAt!: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'When it became verified, failed or expired.',
    example: null,
  })
  endedAt!: string | null;

  @ApiProperty({
    description:
      'Answers refused as not bound to this request (another nonce or audience, no holder proof, an untrusted issuer, garbage): each leaves it pending; the 10th fails it with `too_many_refused_answers` (docs/oid4vp.md).',
    example: 0,
  })
  refusedAnswers!: number;

  @ApiPropertyOptional({ type: PresentationOutcomeDto, description: 'When failed.' })
  outcome?: PresentationOutcomeDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: {
      type: 'array',
      items: { $ref: getSchemaPath(PresentationRequestCredentialDto) },
    },
    description: 'When verified: per credential query id, what was presented.',
    example: verifiedRequestExample.presented,
  })
  presented?: Record<string, PresentationRequestCredentialDto[]>;

  @ApiPropertyOptional({
    description: 'When the disclosed claims were erased (docs/oid4vp.md, Retention).',
    example: '2026-11-26T10:01:12.000Z',
  })
  claimsErasedAt?: string;
}

export class PresentationRequestPageDto extends NumberedPageDto(PresentationRequestDto) {}
