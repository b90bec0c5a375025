import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, type SchemaObject } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { Unlimited } from '../auth/rate-limit.guard.js';
import { type HealthCheckResult } from '@nestjs/terminus';
import { ApiProbeProblems } from '../common/openapi.js';
import { HealthService } from './health.service.js';

/** One check of the readiness answer (terminus' HealthIndicatorResult entry). */
const checkSchema: SchemaObject = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['up', 'down'] } },
  required: ['status'],
  additionalProperties: true,
};
const checksSchema: SchemaObject = { type: 'object', additionalProperties: checkSchema };

@ApiTags('Health')
@Unlimited()
@Controller('ctrl/health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Public()
  @ApiOperation({ operationId: 'live', summary: 'The process is up' })
  @ApiOkResponse({
    description: 'Alive.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['ok'] } },
          required: ['status'],
        },
        example: { status: 'ok' },
      },
    },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @ApiOperation({
    operationId: 'ready',
    summary: 'Ready to serve: the database answers and the issuer keys are there',
  })
  @ApiOkResponse({
    description: 'Ready: every check is up.',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['ok'] },
            info: checksSchema,
            error: checksSchema,
            details: checksSchema,
          },
          required: ['status', 'details'],
        },
        example: {
          status: 'ok',
          info: { database: { status: 'up' }, issuer: { status: 'up', mode: 'embedded' } },
          error: {},
          details: { database: { status: 'up' }, issuer: { status: 'up', mode: 'embedded' } },
        },
      },
    },
  })
  @ApiProbeProblems('/ctrl/health/ready')
  ready(): Promise<HealthCheckResult> {
    return this.health.ready();
  }
}
