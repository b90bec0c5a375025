import { createHash } from 'node:crypto';

/** How a `request_uri` finds its request: by the SHA-256 of its reference (256-bit random). */
export function referenceHash(reference: string): Buffer {
  return createHash('sha256').update(reference).digest();
}
