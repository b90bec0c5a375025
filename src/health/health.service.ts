import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { Settings } from '../config/settings.js';
import { DomainException } from '../common/problem/domain.exception.js';

const checkTimeoutMs = 2000;

/**
 * Readiness (api.md): the database answers and the issuer's signing keys are there: loaded (embedded
 * issuer) or fetchable from AUTH_JWKS_URL (Keycloak), the latter cached for 30 s.
 */
@Injectable()
export class HealthService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly settings: Settings,
  ) {}

  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.health.check([
        () => this.database.pingCheck('database').withTimeout(checkTimeoutMs),
        () => this.issuerKeys(),
      ]);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      const result = error.getResponse() as HealthCheckResult;
      const down = Object.entries(result.error ?? {}).map(([check, detail]) => ({
        field: check,
        message: typeof detail?.message === 'string' ? detail.message : 'down',
      }));
      throw new DomainException(
        'SERVICE_UNAVAILABLE',
        `Not ready: ${down.map((entry) => entry.field).join(', ')} down.`,
        down,
        { 'Retry-After': '5' },
      );
    }
  }

  private issuerKeys() {
    const session = this.indicators.check('issuer');
    if (this.settings.authIssuerEmbedded) {
      // The embedded issuer's keys are loaded before the app listens.
      return session.up({ mode: 'embedded' });
    }
    return session
      .attempt(async ({ signal }) => {
        const response = await fetch(this.settings.authJwksUrl, { signal });
        const body = (await response.json()) as { keys?: unknown[] };
        if (!response.ok || !Array.isArray(body.keys) || body.keys.length === 0) {
          throw new Error(`the JWKS at AUTH_JWKS_URL answered ${response.status} without keys`);
        }
        return { keys: body.keys.length };
      })
      .withTimeout(checkTimeoutMs)
      .cacheFor(30_000);
  }
}
