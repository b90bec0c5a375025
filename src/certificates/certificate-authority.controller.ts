import { Controller, Get, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { ApiProblems } from '../common/openapi.js';
import { CertificateAuthorityService } from './certificate-authority.service.js';
import { authorityNotFound } from './certificate.errors.js';

export const exampleAuthorityId = '4d5c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The service's certificate authority, public: its CRL, where document signers point (docs/certificates.md). */
@ApiTags('Certificates')
@Controller('ctrl/certificate-authorities')
export class CertificateAuthorityController {
  constructor(private readonly authority: CertificateAuthorityService) {}

  @Get(':authorityId/crl')
  @Public()
  @ApiOperation({
    operationId: 'getCertificateAuthorityCrl',
    summary: 'The CRL of the service’s certificate authority (DER, no token)',
    description:
      'RFC 5280 §5, signed by the authority: the CRL distribution point of the mdoc document signer certificates it issued (ISO/IEC 18013-5 Annex B). It lists none: the service revokes no certificate it issued. Made at most once an hour per instance, valid a week.',
  })
  @ApiParam({
    name: 'authorityId',
    description: 'The authority’s id, as the document signer’s CRL distribution point names it.',
    schema: { type: 'string', format: 'uuid', example: exampleAuthorityId },
  })
  @ApiOkResponse({
    description: 'The CRL.',
    headers: {
      'Cache-Control': { description: '`public, max-age=3600`', schema: { type: 'string' } },
    },
    content: {
      'application/pkix-crl': {
        schema: { type: 'string', format: 'binary' },
        example: 'MIH5MIGgAgEBMAoGCCqGSM49BAMCMDgxNjA0BgNVBAMTLUFnZW50IHNlcnZpY2U...',
      },
    },
  })
  @ApiProblems(
    `/ctrl/certificate-authorities/${exampleAuthorityId}/crl`,
    'CERTIFICATE_AUTHORITY_NOT_FOUND',
  )
  async crl(
    @Param('authorityId') authorityId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    if (!uuid.test(authorityId)) throw authorityNotFound();
    const der = await this.authority.crl(authorityId);
    if (der === undefined) throw authorityNotFound();
    response.setHeader('Cache-Control', 'public, max-age=3600');
    // A Buffer would be written as JSON: a StreamableFile is sent as bytes.
    return new StreamableFile(der, { type: 'application/pkix-crl' });
  }
}
