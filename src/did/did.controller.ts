import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { type DidDocument } from './did-key.js';
import { DidService } from './did.service.js';
import { DidDto } from './dto/did.dto.js';

@ApiTags('DID')
@Controller('ctrl/api/v1.0/did')
export class DidController {
  constructor(private readonly dids: DidService) {}

  @Get()
  @TenantScoped()
  @ApiOperation({ operationId: 'getDid', summary: "The tenant's DID" })
  @ApiOkResponse({ type: DidDto })
  getDid(@CurrentTenant() tenantId: string): Promise<DidDto> {
    return this.dids.getDid(tenantId);
  }

  @Get('document')
  @TenantScoped()
  @Header('Content-Type', 'application/did+ld+json')
  @ApiOperation({
    operationId: 'getDidDocument',
    summary: "The W3C DID document of the tenant's DID",
  })
  getDocument(@CurrentTenant() tenantId: string): Promise<DidDocument> {
    return this.dids.getDocument(tenantId);
  }
}
