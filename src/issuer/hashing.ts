import { createHash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256: what the issuer stores instead of codes and cookies, so a leaked table yields none. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function constantTimeEqual(given: string, expected: string): boolean {
  // Hash first so that both sides have the same length and timingSafeEqual applies.
  const left = createHash('sha256').update(given).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}
