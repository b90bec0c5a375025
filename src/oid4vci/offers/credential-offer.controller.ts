import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/access.decorators.js';
import { ApiProblems } from '../../common/openapi.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { createdOfferExample } from './dto/offer-answer.dto.js';
import { OffersService } from './offers.service.js';

/**
 * A wallet fetches the offer a `credential_offer_uri` names (OpenID4VCI 1.0 §4.1.3). The reference is
 * a bearer secret: the request log shows this route's pattern, not its path (src/common/logging.ts).
 */
@ApiTags('OpenID4VCI')
@Controller('ctrl/oid4vci/:tenantId/credential-offers')
export class CredentialOfferController {
  constructor(private readonly offers: OffersService) {}

  @Get(':reference')
  @Public()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getCredentialOffer',
    summary: 'An open credential offer by its reference (no token)',
    description:
      'The Credential Offer object. An unknown reference is 404 "There is no open credential offer here."; a reference to an offer that has expired, was already used or was withdrawn is 404 too, with a `detail` that says which and asks the person to get a new offer from the issuer (nothing else of the offer).',
  })
  @ApiParam({
    name: 'tenantId',
    description: 'The tenant whose issuer this is.',
    schema: { type: 'string', example: 'acme' },
  })
  @ApiParam({
    name: 'reference',
    description: 'The last segment of the offer’s `credential_offer_uri`.',
    schema: { type: 'string', example: 'c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM' },
  })
  @ApiOkResponse({
    description: 'The Credential Offer.',
    content: {
      'application/json': {
        schema: { type: 'object', additionalProperties: true },
        example: createdOfferExample.credentialOffer,
      },
    },
  })
  @ApiProblems(
    '/ctrl/oid4vci/acme/credential-offers/c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM',
    'OFFER_NOT_FOUND',
    'VALIDATION_FAILED',
  )
  offer(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('reference') reference: string,
  ): Promise<Record<string, unknown>> {
    return this.offers.byReference(tenantId, reference);
  }
}
