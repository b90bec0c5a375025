/** A claim path of OpenID4VCI 1.0 Appendix C: keys, array indices, null for every element. */
export type ClaimPath = (string | number | null)[];

/** The frame `@sd-jwt/core` packs by: `_sd` names an object's keys or an array's indices. */
export interface DisclosureFrame {
  _sd?: (string | number)[];
  [key: string]: DisclosureFrame | (string | number)[] | undefined;
}

/**
 * The registered claims the SD-JWT VC draft (§3.2.2.2) says must not be selectively disclosed: an
 * issuer never makes them disclosable, and a verifier refuses a credential that does.
 */
export const nonDisclosableClaims: ReadonlySet<string> = new Set([
  'iss',
  'nbf',
  'exp',
  'cnf',
  'vct',
  'vct#integrity',
  'status',
]);

/**
 * Claims the issuer keeps plain: the non-disclosable ones, `iat` (which it sets after the claims) and
 * the SD-JWT's own members. A path may not make them disclosable.
 */
export const plainClaims: ReadonlySet<string> = new Set([
  ...nonDisclosableClaims,
  'iat',
  '_sd',
  '_sd_alg',
  '...',
]);

/**
 * The disclosure frame of `paths` over `claims` (RFC 9901 §4.2): each path that names a value of
 * `claims` makes that value a disclosure, the object property's or the array element's; a null step
 * names every element of the array there. A path through something that is not there (a missing key,
 * an index past the end, a step into a string) names nothing and is left out, as is a path that starts
 * with a claim of `plainClaims`.
 */
export function disclosureFrame(
  claims: Record<string, unknown>,
  paths: ClaimPath[],
): DisclosureFrame {
  const frame: DisclosureFrame = {};
  for (const path of paths) {
    if (path.length === 0 || (typeof path[0] === 'string' && plainClaims.has(path[0]))) continue;
    addPath(frame, claims, path);
  }
  return frame;
}

function addPath(frame: DisclosureFrame, value: unknown, path: ClaimPath): void {
  const [step, ...rest] = path;
  for (const key of keysAt(value, step)) {
    if (rest.length === 0) {
      frame._sd ??= [];
      if (!frame._sd.includes(key)) frame._sd.push(key);
    } else {
      const child = (frame[String(key)] ?? {}) as DisclosureFrame;
      addPath(child, (value as Record<string | number, unknown>)[key], rest);
      // A path that named nothing further down leaves no frame behind.
      if (Object.keys(child).length > 0) frame[String(key)] = child;
    }
  }
}

/** The keys or indices one step names in `value`: none when it names nothing there. */
function keysAt(value: unknown, step: string | number | null): (string | number)[] {
  if (Array.isArray(value)) {
    if (step === null) return value.map((_, index) => index);
    return typeof step === 'number' && Number.isInteger(step) && step >= 0 && step < value.length
      ? [step]
      : [];
  }
  if (typeof value === 'object' && value !== null && typeof step === 'string') {
    return Object.hasOwn(value, step) ? [step] : [];
  }
  return [];
}
