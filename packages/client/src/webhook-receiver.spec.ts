import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from './webhook-receiver.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = '{"type":"webhook.test","timestamp":"2026-11-25T10:00:00.000Z","data":{}}';
const at = new Date('2026-11-25T10:00:00Z');

/** Signed by the standardwebhooks library, not by the service: the helper must agree with it. */
function signed(id = 'msg_1', date = at) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, date, body),
  };
}

describe(verifyWebhook.name, () => {
  it('accepts what the standardwebhooks library signs, from a plain object or a Headers', () => {
    expect(verifyWebhook(secret, signed(), body, { now: at })).toMatchObject({
      type: 'webhook.test',
    });
    expect(verifyWebhook(secret, new Headers(signed()), Buffer.from(body), { now: at }).type).toBe(
      'webhook.test',
    );
  });

  it('accepts when any of several signatures matches (a secret rotation)', () => {
    const headers = signed();
    const other = new Webhook('whsec_b3RoZXIgc2VjcmV0IG9mIDMyIGJ5dGVzIGxvbmcuLi4=').sign(
      'msg_1',
      at,
      body,
    );
    headers['webhook-signature'] = `${other} ${headers['webhook-signature']}`;
    expect(verifyWebhook(secret, headers, body, { now: at }).type).toBe('webhook.test');
  });

  it.each([
    ['a changed body', () => verifyWebhook(secret, signed(), `${body} `, { now: at })],
    [
      'another id',
      () => verifyWebhook(secret, { ...signed(), 'webhook-id': 'msg_2' }, body, { now: at }),
    ],
    [
      'an old timestamp',
      () => verifyWebhook(secret, signed(), body, { now: new Date(at.getTime() + 301_000) }),
    ],
    [
      'another secret',
      () =>
        verifyWebhook('whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', signed(), body, {
          now: at,
        }),
    ],
    [
      'no signature header',
      () =>
        verifyWebhook(secret, { ...signed(), 'webhook-signature': undefined }, body, { now: at }),
    ],
    [
      'a malformed timestamp',
      () => verifyWebhook(secret, { ...signed(), 'webhook-timestamp': '1e9' }, body, { now: at }),
    ],
  ])('refuses %s', (_name, run) => {
    expect(run).toThrow(WebhookVerificationError);
  });
});
