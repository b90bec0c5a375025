import { setGlobalConfig } from '@openid4vc/oauth2';
import {
  type PresentationCheck,
  type VerifiedPresentation,
} from '../src/credentials/verifying/wallet-presentations.service.js';
import { startTestService, type TestService } from './support/test-service.js';
import { isPlannedPerCall } from '../src/database/bounded-client.js';
import { logStatements } from './support/statement-log.js';
import { answerRequest, resolveRequest } from './support/oid4vp-holder.js';
import {
  insertRequest,
  requestEvents,
  requestRow,
  standInVerifier,
  type TestRequest,
  type TestRequestInput,
  type VerifierCall,
} from './support/oid4vp-requests.js';
import { requestLimits } from '../src/oid4vp/requests/request-limits.js';

type Json = Record<string, unknown>;

const vct = 'https://acme.example/credentials/employee-badge';
const query = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [vct] },
      claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
    },
  ],
};
const verified = (claims: Json): PresentationCheck => ({
  verified: true,
  presentation: {
    format: 'dc+sd-jwt',
    issuer: 'https://issuer.example/ctrl/oid4vci/univ',
    vct,
    claims: { vct, ...claims },
    holderKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    holderBinding: true,
    status: 'valid',
  } satisfies VerifiedPresentation,
});
const disclosed = { given_name: 'Erika', address: { locality: 'Berlin' } };

/**
 * The response endpoint's own rules, over a stand-in for the credentials feature's presentation
 * verifier (test/oid4vp-wallet.e2e-spec.ts uses the real one), so that each shows without real
 * credentials: what the verifier is asked, the DCQL match of what it answers, one conclusion per
 * request with its event, the deadline.
 */
describe('OpenID4VP response endpoint over a stand-in verifier', () => {
  let service: TestService;
  let answerWith: (expectation: VerifierCall) => Promise<PresentationCheck>;
  let calls: VerifierCall[];

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'shop', label: 'Shop' });
    calls = standInVerifier(service, (expectation) => answerWith(expectation));
  });
  beforeEach(() => {
    calls.length = 0;
    answerWith = () => Promise.resolve(verified(disclosed));
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const open = (input: Partial<TestRequestInput> = {}) =>
    insertRequest(service, { tenantId: 'shop', dcqlQuery: query, ...input });

  const post = async (request: TestRequest, vpToken: unknown, state = request.state) => {
    const response = await fetch(request.responseUri, {
      method: 'POST',
      body: new URLSearchParams({ vp_token: JSON.stringify(vpToken), state }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };

  const snapshot = async (request: TestRequest) => ({
    row: await requestRow(service, request.id),
    events: await requestEvents(service.dataSource, request.id),
  });

  it('ends the request with its event in one statement, without a transaction of its own', async () => {
    const request = await open();
    const statements = logStatements(service.dataSource, service.app.getHttpServer());
    try {
      const { result, statements: sent } = await statements.during(
        new URL(request.responseUri).pathname,
        () => post(request, { badge: ['presentation-1'] }),
      );
      expect(result.status).toBe(200);
      expect(sent.filter((text) => /^(START TRANSACTION|BEGIN|COMMIT)/.test(text))).toEqual([]);
      // Each planned once per connection: none the pool would plan at each call.
      expect(sent.filter(isPlannedPerCall)).toEqual([]);
      const writes = sent.filter((text) => /\b(UPDATE|INSERT)\b/.test(text));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/^WITH change AS \(UPDATE oid4vp_request .*enqueue_webhook_event/);
    } finally {
      statements.restore();
    }
    const { row, events } = await snapshot(request);
    expect(row).toMatchObject({ status: 'verified' });
    expect(events.map((event) => event.type)).toEqual(['presentation.verified']);
  });

  it.each(['direct_post', 'direct_post.jwt'] as const)(
    'verifies an answer by %s through OWF’s wallet, asks the verifier with the request’s nonce, client id and issuers, and seals the claims',
    async (responseMode) => {
      const request = await open({ responseMode, trustedIssuers: ['https://issuer.example'] });
      const resolved = await resolveRequest(request.link);
      const response = await answerRequest(resolved, { badge: ['presentation-1'] });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({});
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({
        tenantId: 'shop',
        format: 'dc+sd-jwt',
        presentation: 'presentation-1',
        nonce: request.nonce,
        clientId: request.clientId,
        trustedIssuers: ['https://issuer.example'],
      });
      expect(calls[0].signal).toBeInstanceOf(AbortSignal);
      const { row, events } = await snapshot(request);
      expect(row).toMatchObject({
        status: 'verified',
        outcomeCode: null,
        outcomeReason: null,
        presented: {
          badge: [
            {
              format: 'dc+sd-jwt',
              issuer: 'https://issuer.example/ctrl/oid4vci/univ',
              vct,
              holderKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
              status: 'valid',
            },
          ],
        },
        // The subject's claims only: the credential's own fields are in the summary.
        claims: { badge: [disclosed] },
      });
      expect(JSON.stringify(row.presented)).not.toContain('Erika');
      expect(events.map((event) => event.type)).toEqual(['presentation.verified']);
      expect(events[0].body).not.toContain('Erika');

      // The same answer again is refused and changes nothing; the verifier is not asked again.
      const replay = await answerRequest(resolved, { badge: ['presentation-1'] });
      expect(replay.status).toBe(400);
      expect(calls).toHaveLength(1);
      expect(await snapshot(request)).toEqual({ row, events });
    },
  );

  it('without trusted issuers of its own, leaves the choice to the verifier (the tenant’s list)', async () => {
    const request = await open();
    expect((await post(request, { badge: ['p'] })).status).toBe(200);
    expect(calls[0].trustedIssuers).toBeUndefined();
  });

  it('fails the request with the verifier’s code and reason when the failure is bound to it, and the wallet reads it too', async () => {
    answerWith = () =>
      Promise.resolve({
        verified: false,
        code: 'credential_revoked',
        reason: 'The status list says the credential is revoked.',
        bound: true,
      });
    const request = await open();
    const failed = await post(request, { badge: ['p'] });
    expect(failed).toMatchObject({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'badge: The status list says the credential is revoked.',
      },
    });
    const { row, events } = await snapshot(request);
    expect(row).toMatchObject({
      status: 'failed',
      outcomeCode: 'credential_revoked',
      outcomeReason: 'badge: The status list says the credential is revoked.',
      presented: null,
      claims: null,
      refusedAnswers: 0,
    });
    expect(events.map((event) => event.type)).toEqual(['presentation.failed']);
    expect(JSON.parse(events[0].body)).toMatchObject({
      data: { requestId: request.id, code: 'credential_revoked' },
    });
  });

  const anotherNonce = (): Promise<PresentationCheck> =>
    Promise.resolve({
      verified: false,
      code: 'nonce_mismatch',
      reason: 'The key binding JWT names another nonce.',
    });

  it('refuses an answer not bound to the request and counts it; the holder’s answer then verifies it', async () => {
    answerWith = anotherNonce;
    const request = await open();
    const refused = await post(request, { badge: ['p'] });
    expect(refused).toMatchObject({
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'badge: The key binding JWT names another nonce.',
      },
    });
    expect(await snapshot(request)).toMatchObject({
      row: { status: 'pending', outcomeCode: null, refusedAnswers: 1 },
      events: [],
    });
    answerWith = () => Promise.resolve(verified(disclosed));
    expect((await post(request, { badge: ['p'] })).status).toBe(200);
    expect(await requestRow(service, request.id)).toMatchObject({ status: 'verified' });
  });

  it('refuses a verified presentation without holder binding that does not match, as unbound', async () => {
    answerWith = () =>
      Promise.resolve({
        verified: true,
        presentation: {
          ...(verified({}) as { presentation: VerifiedPresentation }).presentation,
          holderKeyThumbprint: null,
          holderBinding: false,
        },
      });
    const request = await open();
    expect((await post(request, { badge: ['p'] })).status).toBe(400);
    expect(await requestRow(service, request.id)).toMatchObject({
      status: 'pending',
      refusedAnswers: 1,
    });
  });

  it(`fails the request at the ${requestLimits.refusedAnswers}th refused answer, saying so, with one event`, async () => {
    answerWith = anotherNonce;
    const request = await open();
    for (let answer = 1; answer < requestLimits.refusedAnswers; answer++)
      expect((await post(request, { badge: ['p'] })).status).toBe(400);
    // A wrong state counts as well.
    expect((await post(request, { badge: ['p'] }, 'another-state')).status).toBe(400);
    const { row, events } = await snapshot(request);
    expect(row).toMatchObject({
      status: 'failed',
      outcomeCode: 'too_many_refused_answers',
      outcomeReason: `${requestLimits.refusedAnswers} answers were refused as not bound to this request (the last: The state is not the one of this request.)`,
      refusedAnswers: requestLimits.refusedAnswers,
    });
    expect(row.endedAt).not.toBeNull();
    expect(events.map((event) => event.type)).toEqual(['presentation.failed']);
    expect(JSON.parse(events[0].body)).toMatchObject({
      data: { requestId: request.id, code: 'too_many_refused_answers' },
    });
    // Over: even the holder's answer is refused now, and nothing is counted any more.
    answerWith = () => Promise.resolve(verified(disclosed));
    expect((await post(request, { badge: ['p'] })).status).toBe(400);
    expect(await snapshot(request)).toEqual({ row, events });
  });

  it('fails a verified credential that does not disclose a requested claim, naming the path', async () => {
    answerWith = () => Promise.resolve(verified({ given_name: 'Erika' }));
    const request = await open();
    const failed = await post(request, { badge: ['p'] });
    expect(failed.status).toBe(400);
    expect(failed.body.error_description).toMatch(/address\.locality/);
    expect(failed.body.error_description).not.toContain('Erika');
    expect(await requestRow(service, request.id)).toMatchObject({
      status: 'failed',
      outcomeCode: 'query_not_satisfied',
    });
  });

  it('verifies each presentation of a query that allows several, and refuses more than the query allows', async () => {
    const several = await open({
      dcqlQuery: { credentials: [{ ...query.credentials[0], multiple: true }] },
    });
    expect((await post(several, { badge: ['p1', 'p2'] })).status).toBe(200);
    expect(calls.map((call) => call.presentation)).toEqual(['p1', 'p2']);
    expect((await requestRow(service, several.id)).claims).toEqual({
      badge: [disclosed, disclosed],
    });
    // Refused before any presentation is verified: not bound to the request, so only counted.
    const one = await open();
    expect((await post(one, { badge: ['p1', 'p2'] })).status).toBe(400);
    expect(await requestRow(service, one.id)).toMatchObject({
      status: 'pending',
      refusedAnswers: 1,
    });
  });

  it('takes one of two answers sent at once', async () => {
    const request = await open();
    const answers = await Promise.all([
      post(request, { badge: ['a'] }),
      post(request, { badge: ['b'] }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    const { row, events } = await snapshot(request);
    expect(row.status).toBe('verified');
    expect(events).toHaveLength(1);
  });

  it('gives up a verification at the request’s end, and leaves the request as it was', async () => {
    answerWith = ({ signal }) =>
      new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    const request = await open({ expiresAt: new Date(Date.now() + 1500) });
    const before = await snapshot(request);
    const late = await post(request, { badge: ['p'] });
    expect(late).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await snapshot(request)).toEqual(before);
  });
});
