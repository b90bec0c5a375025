/**
 * How far a proof's `iat` may lie from now: made for this request, allowing for clocks apart. Key
 * proofs, DPoP proofs and key binding JWTs share it (a nonce bounds their age as well).
 */
export const issuedAtWindow = { pastSeconds: 300, futureSeconds: 60 } as const;

/**
 * Why `iat` does not say the JWT was made just now (`missing`: not a finite number; `outside`: beyond
 * `issuedAtWindow`), or undefined. `now` in seconds since the epoch.
 */
export function issuedAtProblem(iat: unknown, now: number): 'missing' | 'outside' | undefined {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'missing';
  const early = iat < now - issuedAtWindow.pastSeconds;
  const late = iat > now + issuedAtWindow.futureSeconds;
  return early || late ? 'outside' : undefined;
}
