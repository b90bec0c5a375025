import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/access.decorators.js';
import { ApiProblems } from '../../common/openapi.js';
import { Settings } from '../../config/settings.js';
import { TenantKeys } from '../../did/tenant-keys.service.js';
import { credentialIssuerId } from '../../tenancy/credential-issuer.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';

const issuerPath = 'ctrl/oid4vci/:tenantId';

const example = {
  issuer: credentialIssuerId('http://localhost:8080', 'acme'),
  jwks: {
    keys: [
      {
        kty: 'EC',
        crv: 'P-256',
        x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
        y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
        kid: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
        alg: 'ES256',
        use: 'sig',
      },
    ],
  },
};

/**
 * The tenants' JWT VC Issuer Metadata (SD-JWT VC draft, "JWT VC Issuer Metadata"): the keys that
 * verify the tenant's SD-JWT VCs and Status List Tokens, for a verifier that has the `iss` alone. The
 * well-known segment goes between the origin and the issuer's path (RFC 8615, as RFC 8414 §3.1).
 */
@ApiTags('OpenID4VCI')
@Controller()
export class JwtVcIssuerController {
  constructor(
    private readonly keys: TenantKeys,
    private readonly settings: Settings,
  ) {}

  @Get(`.well-known/jwt-vc-issuer/${issuerPath}`)
  @Public()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({
    operationId: 'getJwtVcIssuerMetadata',
    summary: 'The tenant’s JWT VC Issuer Metadata (no token)',
    description:
      'For the issuer `{PUBLIC_BASE_URL}/ctrl/oid4vci/{tenantId}` (an SD-JWT VC’s `iss`): `jwks` holds the tenant’s public signing keys, ES256 (P-256) and EdDSA (its DID’s Ed25519 key), each with its `kid` (RFC 7638 thumbprint).',
  })
  @ApiParam({
    name: 'tenantId',
    description: 'The tenant whose issuer this is.',
    schema: { type: 'string', example: 'acme' },
  })
  @ApiOkResponse({
    description: 'The metadata.',
    content: {
      'application/json': { schema: { type: 'object', additionalProperties: true }, example },
    },
  })
  @ApiProblems(
    '/.well-known/jwt-vc-issuer/ctrl/oid4vci/acme',
    'TENANT_NOT_FOUND',
    'VALIDATION_FAILED',
  )
  async metadata(
    @Param('tenantId', TenantIdPipe) tenantId: string,
  ): Promise<Record<string, unknown>> {
    const keys = await this.keys.publicKeys(tenantId);
    return {
      issuer: credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId),
      jwks: {
        keys: keys.map(({ kid, alg, publicJwk }) => ({ ...publicJwk, kid, alg, use: 'sig' })),
      },
    };
  }
}
