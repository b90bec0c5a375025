import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery that is not from the service, was changed, or is too old: answer it 400 and drop it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

export interface WebhookEventBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

type Headers = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/**
 * Checks a delivery as Standard Webhooks defines it: one of the `v1,` signatures in `webhook-signature`
 * is the HMAC-SHA256 of `id.timestamp.body` under the subscription's `whsec_` secret, and the timestamp
 * is within `toleranceSeconds` of now. Give the body exactly as received, before any JSON parsing.
 * Deduplicate by `webhook-id`: delivery is at least once.
 */
export function verifyWebhook(
  secret: string,
  headers: Headers,
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: Date } = {},
): WebhookEventBody {
  const header = (name: string): string => {
    const value =
      typeof headers.get === 'function'
        ? (headers as { get(name: string): string | null }).get(name)
        : (headers as Record<string, string | string[] | undefined>)[name];
    if (typeof value !== 'string' || value === '') {
      throw new WebhookVerificationError(`The ${name} header is missing.`);
    }
    return value;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!(Math.abs(now - seconds) <= (options.toleranceSeconds ?? 300))) {
    throw new WebhookVerificationError('The webhook-timestamp is missing, malformed or too old.');
  }
  if (!secret.startsWith('whsec_')) {
    throw new WebhookVerificationError('The secret must be the whsec_... of the subscription.');
  }
  const text = typeof body === 'string' ? body : body.toString('utf8');
  const expected = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${id}.${timestamp}.${text}`)
    .digest();
  const matches = signatures.split(' ').some((signature) => {
    const [version, value = ''] = signature.split(',', 2);
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No webhook-signature matches the secret.');
  return JSON.parse(text) as WebhookEventBody;
}
