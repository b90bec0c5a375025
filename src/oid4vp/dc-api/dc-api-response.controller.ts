import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantScoped } from '../../auth/access.decorators.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../../common/openapi.js';
import { PresentationRequestDto } from '../requests/dto/presentation-request-answer.dto.js';
import {
  failedRequestExample,
  verifiedRequestExample,
} from '../requests/dto/presentation-request.examples.js';
import { DcApiResponseService } from './dc-api-response.service.js';
import {
  clearDataExample,
  DcApiResponseDto,
  encryptedDataExample,
} from './dto/dc-api-response.dto.js';

const exampleId = '0c6f3e8a-9b2d-4f1e-8a7c-5d4b3a2f1e0d';
const dcApiExample = {
  ...verifiedRequestExample,
  id: exampleId,
  responseMode: 'dc_api.jwt',
  expectedOrigins: ['https://shop.example'],
};

/** The browser's answer to a DC API request, posted by the relying party's back end (docs/oid4vp.md). */
@ApiTags('OpenID4VP')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/oid4vp/requests')
export class DcApiResponseController {
  constructor(private readonly responses: DcApiResponseService) {}

  @Post(':id/dc-api-response')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'submitDcApiResponse',
    summary: 'Hand over what the browser’s Digital Credentials API returned',
    description:
      'For a pending `dc_api` or `dc_api.jwt` request: `data` as `navigator.credentials.get` returned it and the page’s `origin`, one of the request’s `expectedOrigins`. Verified as the response endpoint verifies a wallet’s answer, every key binding naming `aud: origin:<origin>` and the request’s nonce (OpenID4VP 1.0 appendix A.4). An answer bound to the request concludes it, verified or failed, and the request is answered as GET shows it; one not bound is refused (400 `PRESENTATION_ANSWER_REFUSED`) and counted, the request staying pending.',
  })
  @ApiParam({
    name: 'id',
    description: 'The presentation request id.',
    schema: { type: 'string', format: 'uuid', example: exampleId },
  })
  @ApiBody({
    type: DcApiResponseDto,
    description: `\`data\` as the browser returned it: \`{vp_token}\` for dc_api, \`{response}\` for dc_api.jwt, for example ${JSON.stringify(encryptedDataExample).slice(0, 60)}…`,
    examples: {
      clear: {
        summary: 'A dc_api answer: the vp_token in the clear',
        value: { origin: 'https://shop.example', data: clearDataExample },
      },
    },
  })
  @ApiOkResponse({
    type: PresentationRequestDto,
    description: 'The request, concluded by this answer.',
    examples: {
      verified: { summary: 'Verified', value: dcApiExample },
      failed: {
        summary: 'Failed: the answer was bound to the request, and a later check failed',
        value: { ...failedRequestExample, id: exampleId, responseMode: 'dc_api.jwt' },
      },
    },
  })
  @ApiProblems(
    `/ctrl/api/v1.0/oid4vp/requests/${exampleId}/dc-api-response`,
    'PRESENTATION_ANSWER_REFUSED',
    'PRESENTATION_REQUEST_NOT_FOUND',
    'PRESENTATION_REQUEST_NOT_PENDING',
    'PRESENTATION_REQUEST_OTHER_MODE',
    'VALIDATION_FAILED',
    'MALFORMED_JSON',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    ...tenantScopedProblems,
  )
  answer(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @Body() body: DcApiResponseDto,
  ): Promise<PresentationRequestDto> {
    return this.responses.answer(tenantId, id, body);
  }
}
