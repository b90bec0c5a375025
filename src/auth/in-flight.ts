import { type NextFunction, type Request, type Response } from 'express';
import { DomainException } from '../common/problem/domain.exception.js';
import { sendProblem } from '../common/problem/problem-response.js';
import { type Settings } from '../config/settings.js';
import { type Metrics } from '../observability/metrics.js';

/** The classes of routes that each have their own bound on requests in flight (docs/operations.md). */
export type RouteClass = 'token' | 'wallet' | 'api';

const tokenPaths = [
  /^\/auth\/realms\/[^/]+\/protocol\/openid-connect\/token\/?$/,
  /^\/ctrl\/oid4vci\/[^/]+\/token\/?$/,
];
const walletPaths = [
  /^\/ctrl\/oid4v(ci|p)\//,
  /^\/\.well-known\/(openid-credential-issuer|oauth-authorization-server)\//,
];
const probePaths = /^\/ctrl\/health(\/|$)/;

/**
 * The class of a request by its path (Express matches paths case-insensitively, so does this);
 * undefined for the probes, which are never bounded.
 */
export function routeClassOf(path: string): RouteClass | undefined {
  const lower = path.toLowerCase();
  if (probePaths.test(lower)) return undefined;
  if (tokenPaths.some((pattern) => pattern.test(lower))) return 'token';
  if (walletPaths.some((pattern) => pattern.test(lower))) return 'wallet';
  return 'api';
}

/** How many requests of each class may be in flight at once; 0: no bound. */
export type InFlightBounds = Readonly<Record<RouteClass, number>>;

export function inFlightBoundsOf(settings: Settings): InFlightBounds {
  return {
    token: settings.HTTP_MAX_IN_FLIGHT_TOKEN,
    wallet: settings.HTTP_MAX_IN_FLIGHT_WALLET,
    api: settings.HTTP_MAX_IN_FLIGHT_API,
  };
}

/** The requests in flight per class, each holding a slot until its release. */
export class InFlightLimits {
  private readonly counts: Record<RouteClass, number> = { token: 0, wallet: 0, api: 0 };

  constructor(readonly bounds: InFlightBounds) {}

  /** A slot for one request, or undefined when its class is at its bound; the release works once. */
  take(routeClass: RouteClass): (() => void) | undefined {
    const bound = this.bounds[routeClass];
    if (bound > 0 && this.counts[routeClass] >= bound) return undefined;
    this.counts[routeClass]++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.counts[routeClass]--;
    };
  }

  inFlight(routeClass: RouteClass): number {
    return this.counts[routeClass];
  }
}

/** What a client waits before trying again: a slot frees within milliseconds. */
const retryAfterSeconds = 1;

/**
 * Express middleware, before any guard, body or database work: a request whose class is at its bound
 * is answered 503 with Retry-After at once, instead of queueing for the database pool. The slot is
 * given back when the answer is written or the connection closes (an aborted client included).
 */
export function admitRequests(
  limits: InFlightLimits,
  metrics: Metrics | undefined,
  publicBaseUrl: string,
) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const routeClass = routeClassOf(request.path);
    if (routeClass === undefined) {
      next();
      return;
    }
    const release = limits.take(routeClass);
    if (release === undefined) {
      metrics?.requestsShed.inc({ class: routeClass, reason: 'in_flight' });
      const detail = `More than ${limits.bounds[routeClass]} ${routeClass} requests are in flight; retry in ${retryAfterSeconds} s.`;
      sendProblem(
        new DomainException('SERVICE_UNAVAILABLE', detail, undefined, {
          'Retry-After': String(retryAfterSeconds),
        }),
        request,
        response,
        publicBaseUrl,
      );
      return;
    }
    metrics?.requestsInFlight.inc({ class: routeClass });
    const done = () => {
      response.removeListener('finish', done);
      response.removeListener('close', done);
      release();
      metrics?.requestsInFlight.dec({ class: routeClass });
    };
    response.on('finish', done);
    response.on('close', done);
    next();
  };
}
