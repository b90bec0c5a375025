import { Cleanup } from './support/cleanup.js';
import { startGateway, type Gateway } from './support/nginx.js';
import { startRecordingUpstream, type RecordingUpstream } from './support/raw-http.js';

/**
 * Real nginx from the template in front of a recording upstream: a flood from one address is answered
 * 429 by nginx itself, and an oversized body 413, both as problem details, without reaching the app.
 */
describe('gateway: request rate and body size limits', () => {
  const cleanup = new Cleanup();
  let gateway: Gateway;
  let upstream: RecordingUpstream;

  beforeAll(async () => {
    upstream = await startRecordingUpstream(cleanup);
    gateway = await startGateway(
      {
        app: [upstream.address],
        auth: [upstream.address],
        directory: cleanup.tempDir('gateway-limits'),
        rate: { rate: '1r/s', burst: '5' },
      },
      cleanup,
    );
  }, 60_000);

  afterAll(() => cleanup.run(), 60_000);

  it('answers a burst beyond the rate with 429 problem details and Retry-After', async () => {
    // Past the readiness probe's share of the burst.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = upstream.requests.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${gateway.origin}/ctrl/api/v1.0/did`)),
    );
    const statuses = answers.map((answer) => answer.status);
    const passed = statuses.filter((status) => status === 200).length;
    // The burst (5) plus at most the one token the rate adds meanwhile.
    expect(passed).toBeGreaterThanOrEqual(5);
    expect(passed).toBeLessThanOrEqual(7);
    expect(upstream.requests.length - before).toBe(passed);
    const refused = answers.find((answer) => answer.status === 429)!;
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      instance: '/ctrl/api/v1.0/did',
    });
    for (const answer of answers) if (!answer.bodyUsed) await answer.body?.cancel();
  });

  it('refuses a body far above the app’s limit with 413 problem details', async () => {
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const before = upstream.requests.length;
    const answer = await fetch(`${gateway.origin}/ctrl/api/v1.0/tenants/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'big', label: 'x'.repeat(200 * 1024) }),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.get('content-type')).toBe('application/problem+json');
    expect(await answer.json()).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(upstream.requests.length).toBe(before);
  });

  it('lets a wallet’s answer to a presentation request through up to the response endpoint’s own limit', async () => {
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const url = `${gateway.origin}/ctrl/oid4vp/shop/requests/${'r'.repeat(43)}/response`;
    const post = (bytes: number) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `vp_token=${'x'.repeat(bytes)}&state=s`,
      });
    const before = upstream.requests.length;
    const passed = await post(300 * 1024);
    expect(passed.status).toBe(200);
    await passed.body?.cancel();
    expect(upstream.requests.length).toBe(before + 1);
    const refused = await post(700 * 1024);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
    expect(upstream.requests.length).toBe(before + 1);
    // Elsewhere under /ctrl the gateway's general limit stays.
    const api = await fetch(`${gateway.origin}/ctrl/oid4vp/shop/requests/${'r'.repeat(43)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `wallet_metadata=${'x'.repeat(300 * 1024)}`,
    });
    expect(api.status).toBe(413);
    await api.body?.cancel();
  });
});
