import {
  applyDecorators,
  Controller,
  Get,
  Headers,
  HttpCode,
  Param,
  Post,
  Res,
} from '@nestjs/common';
import {
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { type Response } from 'express';
import { Authenticated, CurrentCaller, Public } from '../../auth/access.decorators.js';
import { mayActFor, type Caller } from '../../auth/caller.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { ApiProblems, ApiTokenSecurity } from '../../common/openapi.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { StatusListsService } from './status-lists.service.js';

const exampleListId = '0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';
const ApiListParams = () =>
  applyDecorators(
    ApiParam({
      name: 'tenantId',
      description: 'The tenant that issued the list.',
      schema: { type: 'string', example: 'acme' },
    }),
    ApiParam({
      name: 'listId',
      description: 'The list, a UUID.',
      schema: { type: 'string', format: 'uuid', example: exampleListId },
    }),
  );

/**
 * The tenants' status lists, public so that any verifier anywhere can check a credential's status with
 * the list's URL and the issuer's did:key alone.
 */
@ApiTags('Credentials')
@Controller('ctrl/status-lists')
export class StatusListsController {
  constructor(private readonly statusLists: StatusListsService) {}

  @Get(':tenantId/:listId')
  @Public()
  @ApiOperation({
    operationId: 'getStatusList',
    summary: 'A status list, as a signed BitstringStatusListCredential (no token)',
    description:
      "Signed by the tenant's DID. The `ETag` changes with every status change, which shows here at once; `If-None-Match` answers 304.",
  })
  @ApiListParams()
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'An ETag of this list.',
    schema: { type: 'string', example: `"${exampleListId}.1"` },
  })
  @ApiOkResponse({
    description: 'The list.',
    headers: {
      ETag: { description: 'The list version', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=10`', schema: { type: 'string' } },
    },
    content: {
      'application/json': {
        schema: { type: 'object', additionalProperties: true },
        example: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          id: `http://localhost:8080/ctrl/status-lists/acme/${exampleListId}`,
          type: ['VerifiableCredential', 'BitstringStatusListCredential'],
          issuer: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2',
          credentialSubject: {
            id: `http://localhost:8080/ctrl/status-lists/acme/${exampleListId}#list`,
            type: 'BitstringStatusList',
            statusPurpose: 'revocation',
            encodedList: 'uH4sIAAAAAAAAA-3BMQEAAADCoPVPbQwfoAAAAAAAAAAAAAAAAAAAAIC3AYbSVKsAQAAA',
          },
        },
      },
    },
  })
  @ApiResponse({ status: 304, description: 'Not modified since the ETag given.' })
  @ApiProblems('/ctrl/status-lists/acme/unknown', 'STATUS_LIST_NOT_FOUND', 'VALIDATION_FAILED')
  async getList(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('listId') listId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown> | undefined> {
    const { credential, version } = await this.statusLists.publicList(tenantId, listId);
    const etag = `"${listId}.${version}"`;
    response.setHeader('ETag', etag);
    response.setHeader('Cache-Control', 'public, max-age=10');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(etag)) {
      response.status(304);
      return undefined;
    }
    return credential;
  }

  @Get(':tenantId/:listId/token')
  @Public()
  @ApiOperation({
    operationId: 'getStatusListToken',
    summary: 'A revocation list as a Status List Token (statuslist+jwt, no token needed)',
    description:
      "draft-ietf-oauth-status-list §5.1: the JWT, `typ: statuslist+jwt`, ES256 with the tenant's key (`kid` in the tenant's JWT VC Issuer Metadata; `x5c`, its certificate chain without the root, when it has a certificate), `status_list.bits` 1 (1 = INVALID, revoked). The `uri` of an SD-JWT VC's `status.status_list`. The `ETag` changes with every status change, which shows here at once; `If-None-Match` answers 304. A suspension list has no token (404).",
  })
  @ApiListParams()
  @ApiHeader({
    name: 'If-None-Match',
    required: false,
    description: 'An ETag of this token.',
    schema: { type: 'string', example: `"${exampleListId}.1.jwt"` },
  })
  @ApiOkResponse({
    description: 'The Status List Token.',
    headers: {
      ETag: { description: 'The list version', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=10`', schema: { type: 'string' } },
    },
    content: {
      'application/statuslist+jwt': {
        schema: { type: 'string' },
        example:
          'eyJhbGciOiJFUzI1NiIsInR5cCI6InN0YXR1c2xpc3Qrand0Iiwia2lkIjoiLi4uIn0.eyJzdWIiOiIuLi4ifQ.c2ln',
      },
    },
  })
  @ApiResponse({ status: 304, description: 'Not modified since the ETag given.' })
  @ApiProblems(
    '/ctrl/status-lists/acme/unknown/token',
    'STATUS_LIST_NOT_FOUND',
    'VALIDATION_FAILED',
  )
  async getToken(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('listId') listId: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const { token, version } = await this.statusLists.tokenList(tenantId, listId);
    const etag = `"${listId}.${version}.jwt"`;
    response.setHeader('ETag', etag);
    response.setHeader('Cache-Control', 'public, max-age=10');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(/\s*,\s*/).includes(etag)) {
      response.status(304).end();
      return;
    }
    // A buffer, so that Express adds no charset to the media type.
    response.status(200).type('application/statuslist+jwt').send(Buffer.from(token, 'utf8'));
  }

  @Post(':tenantId/:listId/publish')
  @Authenticated()
  @HttpCode(204)
  @ApiTokenSecurity()
  @ApiOperation({
    operationId: 'publishStatusList',
    summary: 'Publish a status list (it always is: for clients that publish explicitly)',
    description:
      'A status change shows in the public list at once, so this only confirms that the list exists and is the caller tenant’s.',
  })
  @ApiListParams()
  @ApiNoContentResponse({ description: 'The list is published.' })
  @ApiProblems(
    '/ctrl/status-lists/acme/unknown/publish',
    'STATUS_LIST_NOT_FOUND',
    'VALIDATION_FAILED',
    'UNAUTHORIZED',
    'FORBIDDEN',
  )
  async publish(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('listId') listId: string,
    @CurrentCaller() caller: Caller,
  ): Promise<void> {
    if (!mayActFor(caller, tenantId)) {
      throw new DomainException('FORBIDDEN', `The caller may not act for tenant '${tenantId}'.`);
    }
    await this.statusLists.publicList(tenantId, listId);
  }
}
