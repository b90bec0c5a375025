import { requestLimits } from '../requests/request-limits.js';

/** The failure code of a request that refused too many answers not bound to it (docs/oid4vp.md). */
export const tooManyRefusedAnswers = 'too_many_refused_answers';

/**
 * What the `count`th refused answer to a pending request does: nothing more than being counted, or,
 * at the bound, it ends the request as failed with a reason that says so and quotes the last refusal.
 */
export function refusalEnding(
  count: number,
  lastReason: string,
  limit: number = requestLimits.refusedAnswers,
): { code: string; reason: string } | undefined {
  if (count < limit) return undefined;
  return {
    code: tooManyRefusedAnswers,
    reason: `${count} answers were refused as not bound to this request (the last: ${lastReason})`,
  };
}
