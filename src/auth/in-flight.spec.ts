import { EventEmitter } from 'node:events';
import { type NextFunction, type Request, type Response } from 'express';
import { Metrics } from '../observability/metrics.js';
import { admitRequests, InFlightLimits, routeClassOf } from './in-flight.js';

/** Just what the middleware and sendProblem use of Express's request and response. */
function fakeExchange(path: string) {
  const request = { path, originalUrl: path, complete: true, headers: {} } as unknown as Request;
  const emitter = new EventEmitter();
  const sent: { status?: number; headers: Record<string, string>; body?: string } = {
    headers: {},
  };
  const response = Object.assign(emitter, {
    headersSent: false,
    setHeader: (name: string, value: string) => (sent.headers[name] = value),
    status: (status: number) => {
      sent.status = status;
      return response;
    },
    type: () => response,
    send: (body: string) => {
      sent.body = body;
      return response;
    },
  }) as unknown as Response & EventEmitter;
  return { request, response, sent };
}

async function shedCount(metrics: Metrics, routeClass: string): Promise<number> {
  const values = (await metrics.requestsShed.get()).values;
  return values.find((value) => value.labels.class === routeClass)?.value ?? 0;
}

describe(routeClassOf.name, () => {
  it.each([
    ['/auth/realms/agent-cloud/protocol/openid-connect/token', 'token'],
    ['/ctrl/oid4vci/acme/token', 'token'],
    ['/CTRL/OID4VCI/acme/Token/', 'token'],
    ['/ctrl/oid4vci/acme/credential', 'wallet'],
    ['/ctrl/oid4vci/acme/credential-offers/abc', 'wallet'],
    ['/ctrl/oid4vp/acme/requests/abc/response', 'wallet'],
    ['/.well-known/openid-credential-issuer/ctrl/oid4vci/acme', 'wallet'],
    ['/ctrl/api/v1.0/did', 'api'],
    ['/auth/realms/agent-cloud/protocol/openid-connect/token/introspect', 'api'],
    ['/auth/realms/agent-cloud/protocol/openid-connect/auth', 'api'],
    ['/ctrl/healthy', 'api'],
    ['/ctrl/health/live', undefined],
    ['/ctrl/health/ready', undefined],
  ])('classes %s as %s', (path, routeClass) => {
    expect(routeClassOf(path)).toBe(routeClass);
  });
});

describe(InFlightLimits.name, () => {
  it('gives no more slots than the bound, and one back per release however often it is called', () => {
    const limits = new InFlightLimits({ token: 2, wallet: 1, api: 0 });
    const first = limits.take('token');
    const second = limits.take('token');
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(limits.take('token')).toBeUndefined();
    // Classes are counted apart; 0 is no bound.
    expect(limits.take('wallet')).toBeDefined();
    expect(limits.take('wallet')).toBeUndefined();
    for (let i = 0; i < 1000; i++) expect(limits.take('api')).toBeDefined();
    first!();
    first!();
    expect(limits.inFlight('token')).toBe(1);
    expect(limits.take('token')).toBeDefined();
    expect(limits.take('token')).toBeUndefined();
  });
});

describe(admitRequests.name, () => {
  const publicBaseUrl = 'http://localhost:8080';

  it('answers 503 with Retry-After at once past the bound, without calling the next handler', async () => {
    const metrics = new Metrics();
    const limits = new InFlightLimits({ token: 1, wallet: 1, api: 1 });
    const admit = admitRequests(limits, metrics, publicBaseUrl);
    const passed: string[] = [];
    const next = (() => passed.push('next')) as NextFunction;

    const held = fakeExchange('/ctrl/oid4vci/acme/token');
    admit(held.request, held.response, next);
    const refused = fakeExchange('/ctrl/oid4vci/acme/token');
    admit(refused.request, refused.response, next);

    expect(passed).toEqual(['next']);
    expect(refused.sent.status).toBe(503);
    expect(refused.sent.headers['Retry-After']).toBe('1');
    expect(JSON.parse(refused.sent.body!)).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      instance: '/ctrl/oid4vci/acme/token',
    });
    expect(await shedCount(metrics, 'token')).toBe(1);
    expect(limits.inFlight('token')).toBe(1);
  });

  it.each(['finish', 'close'])('gives the slot back when the response emits %s', (event) => {
    const limits = new InFlightLimits({ token: 1, wallet: 1, api: 1 });
    const admit = admitRequests(limits, undefined, publicBaseUrl);
    const exchange = fakeExchange('/ctrl/api/v1.0/did');
    admit(exchange.request, exchange.response, (() => undefined) as NextFunction);
    expect(limits.inFlight('api')).toBe(1);
    exchange.response.emit(event);
    // A finished answer's connection closes later: the slot is given back once.
    exchange.response.emit('close');
    expect(limits.inFlight('api')).toBe(0);
  });

  it('never bounds the probes', () => {
    const limits = new InFlightLimits({ token: 1, wallet: 1, api: 1 });
    const admit = admitRequests(limits, undefined, publicBaseUrl);
    let passed = 0;
    for (let i = 0; i < 10; i++) {
      const exchange = fakeExchange('/ctrl/health/ready');
      admit(exchange.request, exchange.response, (() => passed++) as NextFunction);
    }
    expect(passed).toBe(10);
    expect(limits.inFlight('api')).toBe(0);
  });

  it('keeps the count within the bound through any order of arrivals and ends', () => {
    const limits = new InFlightLimits({ token: 3, wallet: 3, api: 3 });
    const admit = admitRequests(limits, undefined, publicBaseUrl);
    const open: (Response & EventEmitter)[] = [];
    let admitted = 0;
    let refused = 0;
    // A fixed pseudo-random sequence: arrivals, finishes and aborted clients interleaved.
    let seed = 7;
    for (let step = 0; step < 500; step++) {
      seed = (seed * 48271) % 2147483647;
      if (seed % 3 !== 0 || open.length === 0) {
        const exchange = fakeExchange('/ctrl/oid4vci/acme/nonce');
        admit(exchange.request, exchange.response, (() => {
          admitted++;
          open.push(exchange.response);
        }) as NextFunction);
        if (exchange.sent.status === 503) refused++;
      } else {
        const [ended] = open.splice(seed % open.length, 1);
        ended.emit(seed % 2 === 0 ? 'finish' : 'close');
      }
      expect(limits.inFlight('wallet')).toBe(open.length);
      expect(open.length).toBeLessThanOrEqual(3);
    }
    expect(admitted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });
});
