import { Controller, Get, Header, Query } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../common/openapi.js';
import {
  DidDocumentDto,
  DidDocumentQuery,
  didDocumentExample,
  multikeyDidDocumentExample,
} from './dto/did-document.dto.js';
import { CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { type DidDocument } from './did-key.js';
import { DidService } from './did.service.js';
import { DidDto, didExample } from './dto/did.dto.js';

@ApiTags('DID')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/did')
export class DidController {
  constructor(private readonly dids: DidService) {}

  @Get()
  // DidService answers TENANT_NOT_FOUND itself: one query per request instead of two.
  @TenantScoped()
  @ApiOperation({
    operationId: 'getDid',
    summary: "The tenant's DID",
    description: 'The DID of the tenant named in the `x-tenant-id` header, with its public key.',
  })
  @ApiOkResponse({ type: DidDto, description: 'The DID.', example: didExample })
  @ApiProblems('/ctrl/api/v1.0/did', ...tenantScopedProblems)
  getDid(@CurrentTenant() tenantId: string): Promise<DidDto> {
    return this.dids.getDid(tenantId);
  }

  @Get('document')
  // DidService answers TENANT_NOT_FOUND itself: one query per request instead of two.
  @TenantScoped()
  @Header('Content-Type', 'application/did+ld+json')
  @ApiOperation({
    operationId: 'getDidDocument',
    summary: "The W3C DID document of the tenant's DID",
    description:
      'What a did:key resolver derives from the DID, in the form `format` asks for: `multikey` is the ' +
      "did:key specification's current form, `ed25519-2020` (the default, as before) the one with the " +
      '2020 suites and a key agreement key. Each is identical to what Digital Bazaar’s did:key resolver ' +
      'derives with the matching key suite; resolvers configured otherwise may differ.',
  })
  @ApiExtraModels(DidDocumentDto)
  @ApiOkResponse({
    description: 'The DID document.',
    content: {
      'application/did+ld+json': {
        schema: { $ref: getSchemaPath(DidDocumentDto) },
        examples: {
          'ed25519-2020': { value: didDocumentExample },
          multikey: { value: multikeyDidDocumentExample },
        },
      },
    },
  })
  @ApiProblems('/ctrl/api/v1.0/did/document', ...tenantScopedProblems)
  getDocument(
    @CurrentTenant() tenantId: string,
    @Query() query: DidDocumentQuery,
  ): Promise<DidDocument> {
    return this.dids.getDocument(tenantId, query.format);
  }
}
