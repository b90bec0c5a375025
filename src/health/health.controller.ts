import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/access.decorators.js';
import { type HealthCheckResult } from '@nestjs/terminus';
import { ApiProblems } from '../common/openapi.js';
import { HealthService } from './health.service.js';

@ApiTags('Health')
@Controller('ctrl/health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('live')
  @Public()
  @ApiOperation({ operationId: 'live', summary: 'The process is up' })
  @ApiOkResponse({ description: '{"status":"ok"}' })
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
    description: '{"status":"ok","info":{"database":{"status":"up"},"issuer":{"status":"up"}}}',
  })
  @ApiProblems('/ctrl/health/ready')
  ready(): Promise<HealthCheckResult> {
    return this.health.ready();
  }
}
