/**
 * Every error the service answers with, one stable `code` each (api.md, Errors). Clients match on `code`;
 * `type` is derived from it. Add a row here to add an error: the filter and the OpenAPI document read this
 * table, so nothing else needs to know.
 */
export const errorCatalog = {
  VALIDATION_FAILED: { status: 400, title: 'Request validation failed' },
  MALFORMED_REQUEST: { status: 400, title: 'Malformed HTTP request' },
  MALFORMED_JSON: { status: 400, title: 'Malformed JSON body' },
  QUERY_BODY_MISMATCH: { status: 400, title: 'Query and body disagree' },
  NOTHING_TO_UPDATE: { status: 400, title: 'Nothing to update' },
  CREDENTIAL_INVALID: { status: 400, title: 'Credential invalid' },
  JSONLD_CONTEXT_UNKNOWN: { status: 400, title: 'JSON-LD context unknown' },
  TENANT_HEADER_MISSING: { status: 400, title: 'Tenant header missing' },
  TENANT_HEADER_INVALID: { status: 400, title: 'Tenant header invalid' },
  IDEMPOTENCY_KEY_INVALID: { status: 400, title: 'Idempotency key invalid' },
  CERTIFICATE_CHAIN_MALFORMED: { status: 400, title: 'Certificate chain malformed' },
  PRESENTATION_ANSWER_REFUSED: { status: 400, title: 'Presentation answer refused' },
  UNAUTHORIZED: { status: 401, title: 'Authentication required' },
  FORBIDDEN: { status: 403, title: 'Access denied' },
  TENANT_NOT_FOUND: { status: 404, title: 'Tenant not found' },
  CREDENTIAL_NOT_FOUND: { status: 404, title: 'Credential not found' },
  STATUS_LIST_NOT_FOUND: { status: 404, title: 'Status list not found' },
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook subscription not found' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  TRUSTED_ISSUER_NOT_FOUND: { status: 404, title: 'Trusted issuer not found' },
  TRUST_ANCHOR_NOT_FOUND: { status: 404, title: 'Trust anchor not found' },
  WALLET_PROVIDER_NOT_FOUND: { status: 404, title: 'Wallet provider not found' },
  CREDENTIAL_CONFIGURATION_NOT_FOUND: { status: 404, title: 'Credential configuration not found' },
  OFFER_NOT_FOUND: { status: 404, title: 'Credential offer not found' },
  CERTIFICATE_AUTHORITY_NOT_FOUND: { status: 404, title: 'Certificate authority not found' },
  PRESENTATION_REQUEST_NOT_FOUND: { status: 404, title: 'Presentation request not found' },
  ROUTE_NOT_FOUND: { status: 404, title: 'Route not found' },
  PROBLEM_TYPE_NOT_FOUND: { status: 404, title: 'Problem type not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
  TENANT_ALREADY_EXISTS: { status: 409, title: 'Tenant already exists' },
  CREDENTIAL_ALREADY_EXISTS: { status: 409, title: 'Credential already exists' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: 'Idempotency key in use' },
  TRUSTED_ISSUER_ALREADY_EXISTS: { status: 409, title: 'Trusted issuer already exists' },
  TRUST_ANCHOR_ALREADY_EXISTS: { status: 409, title: 'Trust anchor already exists' },
  WALLET_PROVIDER_ALREADY_EXISTS: { status: 409, title: 'Wallet provider already exists' },
  CREDENTIAL_CONFIGURATION_ALREADY_EXISTS: {
    status: 409,
    title: 'Credential configuration already exists',
  },
  OFFER_NOT_OPEN: { status: 409, title: 'Credential offer not open' },
  PRESENTATION_REQUEST_NOT_PENDING: { status: 409, title: 'Presentation request not pending' },
  PRESENTATION_REQUEST_OTHER_MODE: {
    status: 409,
    title: 'Presentation request of another response mode',
  },
  CERTIFICATE_AUTHORITY_NOT_CONFIGURED: {
    status: 409,
    title: 'Certificate authority not configured',
  },
  CLIENT_ID_PREFIX_UNAVAILABLE: { status: 409, title: 'Client identifier prefix unavailable' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  CREDENTIAL_NOT_VERIFIED: { status: 422, title: 'Credential not verified' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'Idempotency key reused' },
  TRUSTED_ISSUERS_LIMIT_REACHED: { status: 422, title: 'Trusted issuers limit reached' },
  TRUST_ANCHORS_LIMIT_REACHED: { status: 422, title: 'Trust anchors limit reached' },
  WALLET_PROVIDERS_LIMIT_REACHED: { status: 422, title: 'Wallet providers limit reached' },
  CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED: {
    status: 422,
    title: 'Credential configurations limit reached',
  },
  OFFERS_LIMIT_REACHED: { status: 422, title: 'Credential offers limit reached' },
  LOGIN_PROVIDER_DISCOVERY_FAILED: { status: 422, title: 'Login provider discovery failed' },
  PRESENTATION_REQUESTS_LIMIT_REACHED: {
    status: 422,
    title: 'Presentation requests limit reached',
  },
  CERTIFICATE_KEY_MISMATCH: { status: 422, title: 'Certificate for another key' },
  CERTIFICATE_SELF_SIGNED: { status: 422, title: 'Certificate self-signed' },
  CERTIFICATE_NOT_VALID_NOW: { status: 422, title: 'Certificate not valid now' },
  CERTIFICATE_CHAIN_BROKEN: { status: 422, title: 'Certificate chain broken' },
  CERTIFICATE_PROFILE_UNSUITABLE: { status: 422, title: 'Certificate profile unsuitable' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

/** `TENANT_NOT_FOUND` -> `tenant-not-found`, the last segment of the problem `type` URI. */
export function problemSlug(code: ErrorCode): string {
  return code.toLowerCase().replaceAll('_', '-');
}

export function codeFromSlug(slug: string): ErrorCode | undefined {
  return errorCodes.find((code) => problemSlug(code) === slug);
}
