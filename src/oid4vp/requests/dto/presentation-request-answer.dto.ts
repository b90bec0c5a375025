import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { NumberedPageDto } from '../../../common/page-dto.js';
import { authorizationRequestUriOf, clientIdOf, requestUriOf } from '../../verifier-urls.js';
import {
  type PresentationRequestStatus,
  type PresentedCredentialSummary,
  type ResponseMode,
} from '../presentation-request.entity.js';
import {
  dcqlQueryExample,
  mdocDcqlQueryExample,
  responseModes,
} from './create-presentation-request.dto.js';

export const requestStatuses = [
  'pending',
  'verified',
  'failed',
  'expired',
] as const satisfies readonly PresentationRequestStatus[];

/** The default client id of a tenant with a certificate: x509_hash (OpenID4VP 1.0 §5.9.3). */
const exampleClientId = 'x509_hash:Gv4qkVzrn5WkW6qBsEXdbGs6eFrzCM3b1yZ6V0BZJXo';
const exampleDidClientId = clientIdOf('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK');
const exampleLink = authorizationRequestUriOf(
  exampleClientId,
  requestUriOf('http://localhost:8080', 'globex', 'c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM'),
  'get',
);

export const createdRequestExample = {
  id: '5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90',
  status: 'pending' as PresentationRequestStatus,
  responseMode: 'direct_post' as ResponseMode,
  clientId: exampleClientId,
  authorizationRequestUri: exampleLink,
  expiresAt: '2026-11-25T10:05:00.000Z',
};

/** An unsigned DC API request (OpenID4VP 1.0 appendix A.2): no client_id, the origin stands for it. */
export const unsignedDcApiRequestExample = {
  protocol: 'openid4vp-v1-unsigned' as const,
  data: {
    response_type: 'vp_token',
    response_mode: 'dc_api.jwt',
    nonce: 'bm9uY2UtMjU2LWJpdHMtb2YtcmFuZG9tbmVzcy1oZXJl',
    dcql_query: dcqlQueryExample,
    client_metadata: {
      vp_formats_supported: {
        'dc+sd-jwt': {
          'sd-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
          'kb-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
        },
      },
      jwks: {
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'YO4epjifD-KWeq1sL2tNmm36BhXnkJ0He-WqMYrp9Fk',
            y: 'Hekpm0zfK7C-YccH5iBjcIXgf6YdUvNUac_0At55Okk',
            kid: 'Zp3nOq5L8c2k1mVd4R7sTw',
            use: 'enc',
            alg: 'ECDH-ES',
          },
        ],
      },
      encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
    },
  },
};

/** A signed DC API request (appendix A.3.2): the request object, ES256 with `x5c`, in `request`. */
export const signedDcApiRequestExample = {
  protocol: 'openid4vp-v1-signed' as const,
  data: {
    request:
      'eyJhbGciOiJFUzI1NiIsInR5cCI6Im9hdXRoLWF1dGh6LXJlcStqd3QiLCJ4NWMiOlsiTUlJQi4uLiJdfQ.eyJjbGllbnRfaWQiOiJ4NTA5X2hhc2g6R3Y0cWtWenJuNVdrVzZxQnNFWGRiR3M2ZUZyekNNM2IxeVo2VjBCWkpYbyIsImV4cGVjdGVkX29yaWdpbnMiOlsiaHR0cHM6Ly9zaG9wLmV4YW1wbGUiXSwicmVzcG9uc2VfbW9kZSI6ImRjX2FwaS5qd3QifQ.c2lnbmF0dXJlLWJ5LXRoZS10ZW5hbnRzLWVzMjU2LWtleQ',
  },
};

export const createdDcApiRequestExample = {
  id: '0c6f3e8a-9b2d-4f1e-8a7c-5d4b3a2f1e0d',
  status: 'pending' as PresentationRequestStatus,
  responseMode: 'dc_api.jwt' as ResponseMode,
  clientId: exampleClientId,
  dcApiRequest: signedDcApiRequestExample,
  expiresAt: '2026-11-25T10:05:00.000Z',
};

export const requestExample = {
  ...createdRequestExample,
  requestUriMethod: 'get' as const,
  dcqlQuery: dcqlQueryExample,
  trustedIssuers: null,
  redirectUri: null,
  responseCodeSha256: null,
  expectedOrigins: null,
  createdAt: '2026-11-25T10:00:00.000Z',
  endedAt: null,
  refusedAnswers: 0,
};

export const verifiedRequestExample = {
  ...requestExample,
  authorizationRequestUri: undefined,
  status: 'verified' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  presented: {
    alumni: [
      {
        format: 'dc+sd-jwt',
        issuer: 'http://localhost:8080/ctrl/oid4vci/globex',
        vct: 'https://globex.example/credentials/alumni',
        holderKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        status: 'valid',
        claims: { given_name: 'Alice', alumni_of: 'Globex Academy' },
      },
    ],
  },
};

/** An mDL presented over OpenID4VP (appendix B.2): its elements by namespace, its IACA chain. */
export const verifiedMdocRequestExample = {
  ...requestExample,
  dcqlQuery: mdocDcqlQueryExample,
  authorizationRequestUri: undefined,
  status: 'verified' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  presented: {
    mdl: [
      {
        format: 'mso_mdoc',
        issuer: 'CN=Utopia DS, O=Utopia Transport, C=UT',
        doctype: 'org.iso.18013.5.1.mDL',
        holderKeyThumbprint: 'kS4IwcsBtfu4u6TCnWzJc7r7a9ULmBnvuqEBQeLSYAY',
        status: 'valid',
        certificateChain: {
          leafSubject: 'CN=Utopia DS, O=Utopia Transport, C=UT',
          anchorSubject: 'CN=Utopia IACA, O=Utopia Transport, C=UT',
        },
        claims: {
          'org.iso.18013.5.1': {
            family_name: 'Mustermann',
            birth_date: '1963-08-12',
            driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2020-01-01' }],
          },
        },
      },
    ],
  },
};

export const failedRequestExample = {
  ...requestExample,
  authorizationRequestUri: undefined,
  status: 'failed' as PresentationRequestStatus,
  endedAt: '2026-11-25T10:01:12.000Z',
  outcome: {
    code: 'credential_revoked',
    reason: 'alumni: the status list says the credential is revoked (INVALID)',
  },
};

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
