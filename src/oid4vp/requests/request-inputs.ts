import { exportJWK, generateKeyPair } from 'jose';
import { randomBytes } from 'node:crypto';
import { type FieldError } from '../../common/problem/problem.js';
import { type CreatePresentationRequestDto } from './dto/create-presentation-request.dto.js';
import { isDcApiMode, type ResponseMode } from './presentation-request.entity.js';
import { requestInvalid } from './presentation-request.errors.js';

/** A 256-bit random value, base64url (the reference, the nonce, the state). */
export const drawSecret = () => randomBytes(32).toString('base64url');

/**
 * What a DC API request needs and refuses (OpenID4VP 1.0 appendix A): its origins, and neither a
 * redirect nor a request_uri method, which only links have; a redirect request takes no origins.
 */
export function checkChannel(
  input: CreatePresentationRequestDto,
  responseMode: ResponseMode,
): void {
  const errors: FieldError[] = [];
  if (isDcApiMode(responseMode)) {
    if (input.expectedOrigins === undefined)
      errors.push({ field: 'expectedOrigins', message: `is required with ${responseMode}` });
    for (const field of ['redirectUri', 'requestUriMethod'] as const)
      if (input[field] !== undefined)
        errors.push({ field, message: `is for redirect requests, not ${responseMode}` });
  } else if (input.expectedOrigins !== undefined)
    errors.push({
      field: 'expectedOrigins',
      message: 'is for dc_api and dc_api.jwt requests only',
    });
  if (errors.length > 0) throw requestInvalid(errors);
}

/** The ephemeral P-256 key a `direct_post.jwt` or `dc_api.jwt` answer is encrypted to (OpenID4VP 1.0 §8.3), private. */
export async function responseKey(): Promise<Record<string, unknown>> {
  const { privateKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(16).toString('base64url'), use: 'enc', alg: 'ECDH-ES' };
}
