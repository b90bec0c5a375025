import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '../../auth/access.decorators.js';
import { ApiProblems } from '../../common/openapi.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { createdOfferExample } from './dto/offer-answer.dto.js';
import { closedOfferDescriptions } from './offer-closed.js';
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
      'The Credential Offer object. An unknown reference is 404 `OFFER_NOT_FOUND` with the `detail` "There is no open credential offer here.". A reference to an offer that has closed is the same 404 with a `detail` that says why, in words for the wallet\'s user, and nothing else of the offer: ' +
      Object.values(closedOfferDescriptions)
        .map((words) => `"${words}"`)
        .join(', '),
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
