import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { clientIdPrefixes, type ClientIdPrefix } from '../../client-ids.js';
import { acceptedFormats } from '../dcql-query.js';
import { requestLimits as limits } from '../request-limits.js';

/** Asks for the alumni SD-JWT VC the README's OpenID4VCI step issues, and two of its claims. */
export const dcqlQueryExample = {
  credentials: [
    {
      id: 'alumni',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://globex.example/credentials/alumni'] },
      claims: [{ path: ['given_name'] }, { path: ['alumni_of'] }],
    },
  ],
};

/** The query of the DC API's answer example (src/oid4vp/dc-api/): a credential without holder binding (OpenID4VP 1.0 §6.1). */
export const membershipQueryExample = {
  credentials: [
    {
      id: 'membership',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://shop.example/credentials/membership'] },
      claims: [{ path: ['given_name'] }],
      require_cryptographic_holder_binding: false,
    },
  ],
};

/** Asks for an mDL (ISO/IEC 18013-5) and three of its elements, by [namespace, element]. */
export const mdocDcqlQueryExample = {
  credentials: [
    {
      id: 'mdl',
      format: 'mso_mdoc',
      meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
      claims: [
        { path: ['org.iso.18013.5.1', 'family_name'], intent_to_retain: false },
        { path: ['org.iso.18013.5.1', 'birth_date'], intent_to_retain: false },
        { path: ['org.iso.18013.5.1', 'driving_privileges'], intent_to_retain: true },
      ],
    },
  ],
};

export const responseModes = ['direct_post', 'direct_post.jwt', 'dc_api', 'dc_api.jwt'] as const;

/**
 * A web origin as browsers serialize it (scheme, lower-case host, optional port): https, or http at a
 * loopback host for development (OpenID4VP 1.0 appendix A.2 allows it only there).
 */
export const originPattern =
  /^(https:\/\/([a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])|http:\/\/(localhost|127\.0\.0\.1|\[::1\]))(:[0-9]{1,5})?$/;

/** A presentation request: what to ask the wallet for and how it answers. */
export class CreatePresentationRequestDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: `The DCQL query (OpenID4VP 1.0 §6): formats ${acceptedFormats.join(', ')}; \`meta.vct_values\` (dc+sd-jwt), \`meta.type_values\` (ldp_vc) or \`meta.doctype_value\` (mso_mdoc, its claims as \`path: [namespace, element]\`) required. At most ${limits.dcqlBytes} bytes of JSON, ${limits.credentialQueries} credential queries, ${limits.claimsPerQuery} claims each.`,
    example: dcqlQueryExample,
  })
  @IsObject({ message: 'must be a JSON object' })
  dcqlQuery!: Record<string, unknown>;

  @ApiPropertyOptional({
    enum: responseModes,
    default: 'direct_post',
    description:
      'How the wallet answers (OpenID4VP 1.0 §8.2, §8.3): `direct_post.jwt` encrypts the answer to a key of this request. `dc_api` and `dc_api.jwt` (encrypted, HAIP 1.0): through the browser’s Digital Credentials API (appendix A); the answer is `dcApiRequest`, not a link, and needs `expectedOrigins`.',
    example: 'direct_post',
  })
  @IsOptional()
  @IsIn(responseModes, { message: `must be one of ${responseModes.join(', ')}` })
  responseMode?: (typeof responseModes)[number];

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: limits.expectedOrigins,
    description:
      'DC API requests only, and required there: the web origins of the relying party’s pages that call `navigator.credentials.get` (https, or http at localhost, 127.0.0.1 or [::1] for development), as the browser writes them (`location.origin`). A signed request sends them as `expected_origins`; the answer’s origin must be one of them.',
    example: ['https://shop.example'],
  })
  @IsOptional()
  @Matches(originPattern, {
    each: true,
    message:
      'must hold web origins (https://host[:port], or http:// at localhost, 127.0.0.1 or [::1]) without path, in lower case',
  })
  @MaxLength(limits.originChars, {
    each: true,
    message: `must hold origins of at most ${limits.originChars} characters`,
  })
  @IsString({ each: true, message: 'must hold strings' })
  @ArrayMaxSize(limits.expectedOrigins, {
    message: `must hold at most ${limits.expectedOrigins} origins`,
  })
  @ArrayMinSize(1, { message: 'must hold at least one origin' })
  @IsArray({ message: 'must be an array of web origins' })
  expectedOrigins?: string[];

  @ApiPropertyOptional({
    enum: clientIdPrefixes,
    description:
      'How the wallet knows the verifier (OpenID4VP 1.0 §5.9.3, HAIP 1.0 §5): `x509_hash` (the SHA-256 of the tenant’s leaf certificate) or `x509_san_dns` (a DNS name of the leaf, which must be the host of PUBLIC_BASE_URL), the request object signed ES256 with the chain in `x5c`; `decentralized_identifier` (the tenant’s DID). Default: `x509_hash` when the tenant has an active certificate, else `decentralized_identifier`. An x509 prefix the certificate cannot make is 409 `CLIENT_ID_PREFIX_UNAVAILABLE`.',
    example: 'x509_hash',
  })
  @IsOptional()
  @IsIn(clientIdPrefixes, { message: `must be one of ${clientIdPrefixes.join(', ')}` })
  clientIdPrefix?: ClientIdPrefix;

  @ApiPropertyOptional({
    enum: ['get', 'post'],
    default: 'get',
    description:
      '`post` offers the wallet `request_uri_method=post` in the link (OpenID4VP 1.0 §5.10); the request object is served to GET either way.',
    example: 'get',
  })
  @IsOptional()
  @IsIn(['get', 'post'], { message: 'must be get or post' })
  requestUriMethod?: 'get' | 'post';

  @ApiPropertyOptional({
    type: 'integer',
    minimum: limits.minExpiresIn,
    maximum: limits.maxExpiresIn,
    default: limits.defaultExpiresIn,
    description: 'How long the request waits for the answer, in seconds.',
    example: 300,
  })
  @IsOptional()
  @Max(limits.maxExpiresIn, { message: `must be ${limits.minExpiresIn}-${limits.maxExpiresIn}` })
  @Min(limits.minExpiresIn, { message: `must be ${limits.minExpiresIn}-${limits.maxExpiresIn}` })
  @IsInt({ message: 'must be a whole number' })
  expiresInSeconds?: number;

  @ApiPropertyOptional({
    type: [String],
    minItems: 1,
    maxItems: limits.trustedIssuers,
    description:
      'Only credentials of these issuers (DIDs, or https issuer identifiers of SD-JWT VCs) count. Unset: the tenant’s trusted issuers if it has any, else any issuer whose key resolves.',
    example: ['http://localhost:8080/ctrl/oid4vci/globex'],
  })
  @IsOptional()
  @Matches(/^\S+$/, { each: true, message: 'must hold issuer identifiers without spaces' })
  @MaxLength(limits.trustedIssuerChars, {
    each: true,
    message: `must hold issuer identifiers of at most ${limits.trustedIssuerChars} characters`,
  })
  @IsString({ each: true, message: 'must hold strings' })
  @ArrayMaxSize(limits.trustedIssuers, {
    message: `must hold at most ${limits.trustedIssuers} issuers`,
  })
  @ArrayMinSize(1, { message: 'must hold at least one issuer; leave it out to trust any' })
  @IsArray({ message: 'must be an array of issuer identifiers' })
  trustedIssuers?: string[];

  @ApiPropertyOptional({
    maxLength: limits.redirectUriChars,
    description:
      'Same-device flows (OpenID4VP 1.0 §8.2): once the answer verifies, the response endpoint tells the wallet to send the person’s browser here, with a fresh `response_code` query parameter whose SHA-256 the request then shows as `responseCodeSha256`. An https URL without a fragment.',
    example: 'https://shop.example/checkout/verified',
  })
  @IsOptional()
  @IsUrl(
    { protocols: ['https'], require_protocol: true, require_tld: false, allow_fragments: false },
    { message: 'must be an https URL without a fragment' },
  )
  @Matches(/^https:\/\/[\x21-\x7e]+$/, {
    message: 'must be an https URL of printable ASCII characters',
  })
  @MaxLength(limits.redirectUriChars, {
    message: `must be at most ${limits.redirectUriChars} characters`,
  })
  @IsString({ message: 'must be a string' })
  redirectUri?: string;
}
