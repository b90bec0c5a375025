import { Controller, Get, Header, Headers, Param, Res } from '@nestjs/common';
import {
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { ApiProblems } from '../common/openapi.js';
import { credentialIssuerId } from '../tenancy/credential-issuer.js';
import { TenantIdPipe } from '../tenancy/tenant-id.pipe.js';
import { configurationExample } from './dto/credential-configuration.examples.js';
import { authorizationServerMetadata, credentialIssuerMetadata } from './issuer-metadata.js';
import { IssuerMetadataService } from './issuer-metadata.service.js';
import { answerMetadata, signedMetadataExample } from './metadata-negotiation.js';

const issuerPath = 'ctrl/oid4vci/:tenantId';
const exampleIssuer = credentialIssuerId('http://localhost:8080', 'acme');
const tenantParameter = {
  name: 'tenantId',
  description: 'The tenant whose issuer this is.',
  schema: { type: 'string' as const, example: 'acme' },
};
const json = (example: Record<string, unknown>) => ({
  'application/json': { schema: { type: 'object' as const, additionalProperties: true }, example },
});

/**
 * The tenants' public OpenID4VCI discovery (docs/oid4vci.md): the well-known segment goes between the
 * origin and the issuer's path, as OpenID4VCI 1.0 §12.2.2 and RFC 8414 §3.1 say.
 */
@ApiTags('OpenID4VCI')
@Controller()
export class IssuerMetadataController {
  constructor(private readonly metadata: IssuerMetadataService) {}

  @Get(`.well-known/openid-credential-issuer/${issuerPath}`)
  @Public()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({
    operationId: 'getCredentialIssuerMetadata',
    summary: 'The tenant’s OpenID4VCI Credential Issuer Metadata (no token)',
    description:
      'For the credential issuer `{PUBLIC_BASE_URL}/ctrl/oid4vci/{tenantId}`; `credential_configurations_supported` lists the tenant’s credential configurations.',
  })
  @ApiParam(tenantParameter)
  @ApiOkResponse({
    description:
      'The metadata; with a certificate, `signed_metadata` too. With `Accept: application/jwt` and a certificate, the signed metadata alone (OpenID4VCI 1.0 §12.2.3), `typ: openidvci-issuer-metadata+jwt`, ES256, `x5c` in its header.',
    headers: { Vary: { description: '`Accept`', schema: { type: 'string' } } },
    content: {
      ...json({
        ...credentialIssuerMetadata(
          exampleIssuer,
          { id: 'acme', label: 'ACME Corp', imageUrl: null },
          [configurationExample],
        ),
        signed_metadata: signedMetadataExample,
      }),
      'application/jwt': { schema: { type: 'string' as const }, example: signedMetadataExample },
    },
  })
  @ApiProblems(
    '/.well-known/openid-credential-issuer/ctrl/oid4vci/acme',
    'TENANT_NOT_FOUND',
    'VALIDATION_FAILED',
  )
  async credentialIssuer(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown> | string> {
    return answerMetadata(await this.metadata.credentialIssuer(tenantId), accept, response);
  }

  @Get(`.well-known/oauth-authorization-server/${issuerPath}`)
  @Public()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiOperation({
    operationId: 'getAuthorizationServerMetadata',
    summary: 'The tenant issuer’s OAuth 2.0 Authorization Server Metadata (no token)',
    description: 'RFC 8414, for the pre-authorized code flow of OpenID4VCI.',
  })
  @ApiParam(tenantParameter)
  @ApiOkResponse({
    description: 'The metadata.',
    content: json(authorizationServerMetadata(exampleIssuer)),
  })
  @ApiProblems(
    '/.well-known/oauth-authorization-server/ctrl/oid4vci/acme',
    'TENANT_NOT_FOUND',
    'VALIDATION_FAILED',
  )
  authorizationServer(
    @Param('tenantId', TenantIdPipe) tenantId: string,
  ): Promise<Record<string, unknown>> {
    return this.metadata.authorizationServer(tenantId);
  }

  /**
   * The same documents where wallets built on OpenID4VCI drafts look (the well-known segment appended
   * to the issuer's path, as @sphereon/oid4vci-client 0.20 does): a compatibility alias, not in the
   * OpenAPI document (docs/oid4vci.md, Identifiers).
   */
  @Get(`${issuerPath}/.well-known/openid-credential-issuer`)
  @Public()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiExcludeEndpoint()
  async credentialIssuerAppended(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown> | string> {
    return answerMetadata(await this.metadata.credentialIssuer(tenantId), accept, response);
  }

  @Get(`${issuerPath}/.well-known/oauth-authorization-server`)
  @Public()
  @Header('Cache-Control', 'public, max-age=60')
  @ApiExcludeEndpoint()
  authorizationServerAppended(
    @Param('tenantId', TenantIdPipe) tenantId: string,
  ): Promise<Record<string, unknown>> {
    return this.metadata.authorizationServer(tenantId);
  }
}
