import { createHmac, randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('base64')}`;
}

/** `v1,` + base64 HMAC-SHA256 over `id.timestamp.body`, keyed with the secret's bytes (Standard Webhooks). */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(secretPrefix.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
