import { applyDecorators, type INestApplication } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiResponse,
  ApiSecurity,
  type ApiResponseOptions,
  DECORATORS,
  DocumentBuilder,
  getSchemaPath,
  SwaggerModule,
  type OpenAPIObject,
} from '@nestjs/swagger';
import { errorCatalog, problemSlug, type ErrorCode } from './problem/error-codes.js';
import { problemContentType } from './problem/problem.js';
import { CheckProblemDto, FieldErrorDto, ProblemDto } from './problem/problem.dto.js';

/** Names of the security schemes in the document. */
export const securitySchemes = { oauth2: 'oauth2', bearer: 'bearer', tenant: 'tenant' } as const;

/** Admin and caller-filtered routes: an access token, from the login flow or pasted. */
export const ApiTokenSecurity = () =>
  applyDecorators(
    ApiSecurity({ [securitySchemes.oauth2]: ['openid'] }),
    ApiSecurity({ [securitySchemes.bearer]: [] }),
  );

/** Tenant-scoped routes: an access token AND the tenant header. */
export const ApiTenantSecurity = () =>
  applyDecorators(
    ApiSecurity({ [securitySchemes.oauth2]: ['openid'], [securitySchemes.tenant]: [] }),
    ApiSecurity({ [securitySchemes.bearer]: [], [securitySchemes.tenant]: [] }),
  );

const whenByCode: Partial<Record<ErrorCode, string>> = {
  VALIDATION_FAILED: 'A field, query parameter or path id is invalid, missing or unknown.',
  UNAUTHORIZED: 'No valid access token.',
  FORBIDDEN: 'The caller may not do this (role, or tenant outside its tenant_ids).',
  TENANT_NOT_FOUND: 'No such tenant.',
  SERVICE_UNAVAILABLE:
    'The database or the token issuer cannot be reached, or the service has as many requests in flight as it takes; see Retry-After.',
  RATE_LIMITED:
    'Too many requests this second or this minute from the caller or the address; see Retry-After.',
  IDEMPOTENCY_KEY_INVALID:
    'The Idempotency-Key is not 1-255 printable ASCII characters, or is sent twice.',
  IDEMPOTENCY_KEY_IN_USE:
    'A request with this Idempotency-Key is still being processed; retry after Retry-After seconds.',
  IDEMPOTENCY_KEY_REUSED:
    'This Idempotency-Key was first used with another request (path, query or body) in the last 24 hours.',
};

function example(code: ErrorCode, path: string) {
  const errors =
    code === 'VALIDATION_FAILED'
      ? [
          {
            field: 'id',
            message:
              'must be 1-64 characters of A-Z a-z 0-9 _ . -, starting with a letter or digit',
          },
        ]
      : undefined;
  return {
    type: `http://localhost:8080/ctrl/problems/${problemSlug(code)}`,
    title: errorCatalog[code].title,
    status: errorCatalog[code].status,
    detail: whenByCode[code] ?? errorCatalog[code].title,
    instance: path,
    code,
    ...(errors === undefined ? {} : { errors }),
  };
}

/** What every tenant-scoped route may answer about its token and `x-tenant-id`. */
export const tenantScopedProblems = [
  'TENANT_HEADER_MISSING',
  'TENANT_HEADER_INVALID',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'TENANT_NOT_FOUND',
] as const satisfies readonly ErrorCode[];

/**
 * The error answers of an operation, grouped by status, each a problem+json with an example per code.
 * Every operation also gets 429, 500 and 503, which any request can meet.
 */
export const ApiProblems = (path: string, ...codes: ErrorCode[]) =>
  problemResponses(path, [...codes, 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

/** The same for the probes, which are never rate-limited. */
export const ApiProbeProblems = (path: string, ...codes: ErrorCode[]) =>
  problemResponses(path, [...codes, 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']);

/**
 * Problem answers an operation gives besides those of its ApiProblems, such as those of a decorator that
 * adds a behaviour (@Idempotent); answers of a status already documented gain the new examples.
 */
export const ApiMoreProblems = (path: string, ...codes: ErrorCode[]) =>
  problemResponses(path, codes);

const problemResponses = (path: string, all: ErrorCode[]) => {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = errorCatalog[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: MethodDecorator = (target, key, descriptor) => {
    for (const [status, statusCodes] of byStatus) {
      // An answer of this status documented by another decorator keeps its examples beside these.
      const documented = (
        Reflect.getMetadata(DECORATORS.API_RESPONSE, descriptor.value as object) as
          | Record<string, { content?: Record<string, { examples?: object }> } | undefined>
          | undefined
      )?.[status]?.content?.[problemContentType]?.examples;
      const options: ApiResponseOptions = {
        status,
        // One Markdown list item per code: joined with spaces they read as one run-on sentence.
        description: statusCodes
          .map((code) => `- \`${code}\`: ${whenByCode[code] ?? errorCatalog[code].title}`)
          .join('\n'),
        content: {
          [problemContentType]: {
            schema: { $ref: getSchemaPath(ProblemDto) },
            examples: {
              ...documented,
              ...Object.fromEntries(
                statusCodes.map((code) => [code, { value: example(code, path) }]),
              ),
            },
          },
        },
      };
      // Left out rather than undefined, which would erase the headers another decorator documented.
      const headers = headersOf(status);
      if (headers !== undefined) options.headers = headers;
      ApiResponse(options)(target, key, descriptor);
    }
    return descriptor;
  };
  return applyDecorators(ApiExtraModels(ProblemDto, FieldErrorDto, CheckProblemDto), responses);
};

/** The headers a problem answer of this status always has. */
function headersOf(status: number): ApiResponseOptions['headers'] {
  if (status === 401) {
    return {
      'WWW-Authenticate': { description: 'RFC 6750 Bearer challenge', schema: { type: 'string' } },
    };
  }
  if (status === 503 || status === 429) {
    return {
      'Retry-After': {
        description: 'Seconds to wait before retrying',
        schema: { type: 'integer' },
      },
    };
  }
  return undefined;
}

/** The OpenAPI document: served at /ctrl/v3/api-docs and the source of the typed client. */
export function buildOpenApiDocument(
  app: INestApplication,
  settings: { readonly authIssuerUrl: string; readonly PUBLIC_BASE_URL: string },
): OpenAPIObject {
  const oidc = `${settings.authIssuerUrl}/protocol/openid-connect`;
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Agent service')
      .setDescription(
        [
          'Multi-tenant identity agent: tenants (organisations), each with a did:key DID whose key the service',
          'keeps; W3C Verifiable Credentials issued with that DID, verified, revoked and suspended (Bitstring',
          'status lists); presentations verified; and signed webhooks (Standard Webhooks) about what happened.',
          '',
          '**Try it:** 1. choose *Authorize* and sign in under `oauth2` (client_id `agent-client`, no secret;',
          'local mode: admin/admin or demo/demo). 2. Pick a tenant in the *Tenant* box at the top of this page:',
          'it lists your tenants once you are signed in, and fills the `x-tenant-id` header of the',
          'tenant-scoped operations (the only place to set it). No tenant yet? Create one with',
          '*Tenants → createTenant* first.',
          '',
          'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`.',
        ].join('\n'),
      )
      .setVersion('1.0')
      .setLicense('Apache-2.0', 'https://www.apache.org/licenses/LICENSE-2.0')
      .addServer(settings.PUBLIC_BASE_URL)
      .addTag(
        'Tenants',
        'Tenants (organisations), each with its own DID: agent-admin manages all, an agent-user sees its own.',
      )
      .addTag('DID', 'The DID of the tenant named in the `x-tenant-id` header.')
      .addTag(
        'Credentials',
        'W3C Verifiable Credentials issued with the DID of the tenant named in `x-tenant-id`, and verified.',
      )
      .addTag(
        'Webhooks',
        'Subscriptions to the events of the tenant named in `x-tenant-id`, delivered as signed Standard Webhooks.',
      )
      .addTag(
        'Webhooks for all tenants',
        "agent-admin's subscriptions to every tenant's events, tenant lifecycle included; no `x-tenant-id`.",
      )
      .addTag(
        'Trusted issuers',
        'The issuers whose credentials verification accepts for the tenant named in `x-tenant-id`, when a request names none.',
      )
      .addTag(
        'Trust anchors',
        'The X.509 certificates an `x5c` chain of a credential presented to the tenant named in `x-tenant-id` must end at (HAIP 1.0).',
      )
      .addTag(
        'Wallet providers',
        'The wallet providers whose wallet and key attestations the OpenID4VCI issuer of the tenant named in `x-tenant-id` accepts (HAIP 1.0), and whether it requires a wallet attestation.',
      )
      .addTag(
        'Certificates',
        "X.509 certificates for the ES256 key of the tenant named in `x-tenant-id` (HAIP 1.0 `x5c`): from the service's certificate authority, or a CSR for the tenant's own CA and the chain it answers.",
      )
      .addTag(
        'OpenID4VCI',
        "Each tenant as an OpenID for Verifiable Credential Issuance 1.0 issuer: the credential configurations of the tenant named in `x-tenant-id`, and the issuer's public metadata (no token).",
      )
      .addTag(
        'OpenID4VP',
        'Each tenant as an OpenID for Verifiable Presentations 1.0 verifier: the presentation requests of the tenant named in `x-tenant-id`, answered by wallets.',
      )
      .addTag('Health', 'Liveness and readiness probes; no token needed.')
      .addOAuth2(
        {
          type: 'oauth2',
          description:
            'Keycloak login (authorization code with PKCE), client `agent-client`, no secret.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${oidc}/auth`,
              tokenUrl: `${oidc}/token`,
              scopes: { openid: 'OpenID Connect', profile: 'Profile', email: 'Email' },
            },
          },
        },
        securitySchemes.oauth2,
      )
      .addBearerAuth(
        {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'An access token obtained elsewhere.',
        },
        securitySchemes.bearer,
      )
      .addApiKey(
        {
          type: 'apiKey',
          in: 'header',
          name: 'x-tenant-id',
          description:
            'The tenant a tenant-scoped call acts for (in the Swagger UI: the Tenant box at the top).',
        },
        securitySchemes.tenant,
      )
      .build(),
    { operationIdFactory: (_controller, method) => method },
  );
  // Operations that declare no security are public: say so explicitly (security: []).
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of [
      pathItem.get,
      pathItem.post,
      pathItem.put,
      pathItem.patch,
      pathItem.delete,
    ]) {
      if (operation !== undefined && operation.security === undefined) operation.security = [];
    }
  }
  return document;
}
