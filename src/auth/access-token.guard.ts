import { Inject, Injectable, Logger, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { requestIdOf } from '../common/logging.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { Metrics, type TokenRefusal } from '../observability/metrics.js';
import { accessRuleOf } from './access-policy.guard.js';
import { type ContextualRequest } from './access.decorators.js';
import { type Caller } from './caller.js';
import { bearerToken, VerifiedTokens } from './access-token.strategy.js';
import { clientAddress } from './rate-limit.guard.js';
import { routeClassOf } from './in-flight.js';
import { RateLimits } from './rate-limits.js';

const realm = 'agent-cloud';

/** Error facts read by name, not instanceof: errors may come from another realm (vm, worker). */
function errorName(error: unknown): string | undefined {
  const name =
    typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : undefined;
}

function errorMessage(error: unknown): string | undefined {
  const message =
    typeof error === 'object' && error !== null
      ? (error as { message?: unknown }).message
      : undefined;
  return typeof message === 'string' ? message : undefined;
}

/**
 * First of the global guards: every route but the @Public() ones needs a valid access token. Failures
 * are 401 with an RFC 6750 challenge and a problem body; the token itself is never logged.
 */
@Injectable()
export class AccessTokenGuard extends AuthGuard('jwt') {
  private readonly logger = new Logger(AccessTokenGuard.name);

  constructor(
    private readonly reflector: Reflector,
    @Inject(VerifiedTokens) private readonly verifiedTokens: VerifiedTokens,
    private readonly metrics: Metrics,
    private readonly limits: RateLimits,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (accessRuleOf(this.reflector, context) === 'public') return true;
    // The same token as one verified moments ago: its caller, without verifying it again.
    const request = context.switchToHttp().getRequest<ContextualRequest>();
    const token = bearerToken(request);
    const caller = token === null ? undefined : this.verifiedTokens.get(token);
    if (caller !== undefined) {
      this.metrics.tokenChecks.inc({ outcome: 'remembered' });
      request.user = caller;
      return true;
    }
    try {
      return (await super.canActivate(context)) as boolean;
    } catch (refusal) {
      // Guessing tokens is limited like any request without a verified one: by its address.
      await this.limits.consume('ip', clientAddress(request), routeClassOf(request.path) ?? 'api');
      throw refusal;
    }
  }

  override handleRequest<TUser = Caller>(
    error: unknown,
    caller: TUser | false,
    info: unknown,
    context?: ExecutionContext,
  ): TUser {
    if (caller !== false && caller !== undefined && caller !== null && error === null) {
      this.metrics.tokenChecks.inc({ outcome: 'verified' });
      return caller;
    }
    const reason = error ?? info;
    const refused = (why: TokenRefusal) =>
      this.metrics.tokenChecks.inc({ outcome: 'refused', reason: why });
    if (errorName(reason) === 'IssuerUnavailableError') {
      refused('issuer_unavailable');
      this.logger.warn({
        msg: `Cannot fetch the issuer's signing keys: ${errorMessage(reason) ?? 'unknown error'}`,
        reqId: context === undefined ? undefined : requestIdOf(context.switchToHttp().getRequest()),
      });
      throw new DomainException(
        'SERVICE_UNAVAILABLE',
        'The token issuer cannot be reached; try again shortly.',
        undefined,
        {
          'Retry-After': '5',
        },
      );
    }
    // No bearer token at all: known from our own extractor, not from passport-jwt's message.
    const missing =
      context !== undefined &&
      bearerToken(context.switchToHttp().getRequest<ContextualRequest>()) === null;
    if (missing) {
      refused('missing');
      // RFC 6750 §3.1: no error code when the request carried no credentials at all.
      throw new DomainException(
        'UNAUTHORIZED',
        'Send an access token: Authorization: Bearer <token>.',
        undefined,
        {
          'WWW-Authenticate': `Bearer realm="${realm}"`,
        },
      );
    }
    const expired = errorName(reason) === 'TokenExpiredError';
    refused(expired ? 'expired' : 'invalid');
    const description = expired ? 'The access token expired' : 'The access token is not valid';
    throw new DomainException(
      'UNAUTHORIZED',
      `${description}; get a new one from the token endpoint.`,
      undefined,
      {
        'WWW-Authenticate': `Bearer realm="${realm}", error="invalid_token", error_description="${description}"`,
      },
    );
  }
}
