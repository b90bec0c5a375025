import { type Response } from 'express';
import { type IssuerMetadataAnswer } from './issuer-metadata.service.js';

/** What the OpenAPI document shows for signed metadata (a JWT's shape, not a real signature). */
export const signedMetadataExample =
  'eyJ0eXAiOiJvcGVuaWR2Y2ktaXNzdWVyLW1ldGFkYXRhK2p3dCIsImFsZyI6IkVTMjU2Iiwia2lkIjoiLi4uIiwieDVjIjpbIk1JSUIuLi4iXX0.eyJjcmVkZW50aWFsX2lzc3VlciI6Ii4uLiJ9.c2ln';

/**
 * The metadata as the wallet asked (OpenID4VCI 1.0 §12.2.2): the signed JWT as `application/jwt` when
 * its Accept header prefers it and there is one, else the JSON; `Vary: Accept` for caches either way.
 */
export function answerMetadata(
  answer: IssuerMetadataAnswer,
  accept: string | undefined,
  response: Response,
): Record<string, unknown> | string {
  response.setHeader('Vary', 'Accept');
  if (answer.signed === undefined || !prefersJwt(accept)) return answer.metadata;
  response.type('application/jwt');
  return answer.signed;
}

/** Whether `application/jwt` has a weight above zero and at least that of `application/json`. */
export function prefersJwt(accept: string | undefined): boolean {
  if (accept === undefined || accept.length > 1_024) return false;
  const weights = new Map<string, number>();
  for (const range of accept.split(',').slice(0, 20)) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(weight)) weights.set(type, weight);
  }
  const jwt = weights.get('application/jwt') ?? 0;
  return jwt > 0 && jwt >= (weights.get('application/json') ?? 0);
}
