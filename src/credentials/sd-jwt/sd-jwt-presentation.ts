import { SDJwt } from '@sd-jwt/core';
import { createHash } from 'node:crypto';
import { nonDisclosableClaims } from './disclosure-frame.js';
import { decodeJws, type DecodedJws } from '../../jose/jws.js';
import { shown } from './jws.js';

type Json = Record<string, unknown>;
type Disclosure = NonNullable<SDJwt['disclosures']>[number];

/**
 * What one presented SD-JWT may hold, checked before anything else reads it: a real credential is a
 * few kilobytes with tens of disclosures, a few levels deep.
 */
export const sdJwtPresentationLimits = {
  /** The whole compact string: issuer JWT, disclosures and KB-JWT. */
  chars: 64 * 1024,
  disclosures: 256,
  /** Levels of nesting through the payload and the disclosures' values. */
  depth: 32,
  /** JSON values of the payload and every disclosure, counted once each. */
  values: 5_000,
} as const;

/** An SD-JWT presentation taken apart (RFC 9901 §4): nothing verified yet. */
export interface ParsedSdJwt {
  issuerJwt: string;
  issuer: DecodedJws;
  disclosures: string[];
  /** The KB-JWT, when one follows the last `~`. */
  kbJwt?: string;
  /** The presentation up to and including the last `~`: what the KB-JWT's `sd_hash` covers (§4.3.1). */
  withoutKb: string;
}

/** A malformed presentation or an invalid disclosure, with a reason that names the check. */
export interface SdJwtProblem {
  code: 'presentation_malformed' | 'disclosure_invalid';
  reason: string;
}

const sha256 = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data))
      .digest(),
  );

/** base64url SHA-256 of `text`: a disclosure's digest, a KB-JWT's `sd_hash`. */
export const sha256Base64url = (text: string) => Buffer.from(sha256(text)).toString('base64url');

const malformed = (reason: string): SdJwtProblem => ({ code: 'presentation_malformed', reason });
const invalid = (reason: string): SdJwtProblem => ({ code: 'disclosure_invalid', reason });

/** The compact `<issuer JWT>~<disclosure>~…~<KB-JWT>` within the limits, or why it is not one. */
export function parseSdJwt(presentation: unknown): ParsedSdJwt | SdJwtProblem {
  if (typeof presentation !== 'string') return malformed('the presentation is not a string');
  if (presentation.length > sdJwtPresentationLimits.chars) {
    return malformed(`the presentation is longer than ${sdJwtPresentationLimits.chars} characters`);
  }
  const parts = presentation.split('~');
  if (parts.length < 2) return malformed('the presentation has no `~`: it is not an SD-JWT');
  if (parts.length - 2 > sdJwtPresentationLimits.disclosures) {
    return malformed(
      `the presentation has more than ${sdJwtPresentationLimits.disclosures} disclosures`,
    );
  }
  const [issuerJwt, ...rest] = parts;
  const kbJwt = rest.pop();
  if (rest.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) {
    return malformed('a disclosure is empty or not base64url');
  }
  const issuer = decodeJws(issuerJwt);
  if (typeof issuer === 'string') return malformed(`the issuer-signed JWT ${issuer}`);
  return {
    issuerJwt,
    issuer,
    disclosures: rest,
    kbJwt: kbJwt === '' ? undefined : kbJwt,
    withoutKb: presentation.slice(0, presentation.lastIndexOf('~') + 1),
  };
}

/**
 * The payload with the disclosures in place (RFC 9901 §7.1), without `_sd`, `_sd_alg` and undisclosed
 * array elements, once every disclosure checks out: `_sd_alg` sha-256, each disclosure well formed and
 * presented once, its digest in the payload (or in another disclosure) exactly once and in a place of
 * its kind, and no claim named twice at one level. @sd-jwt/core decodes and unpacks; it checks none
 * of these, so they are checked here first.
 */
export async function disclosedPayload(
  parsed: ParsedSdJwt,
): Promise<{ claims: Json } | SdJwtProblem> {
  const { payload } = parsed.issuer;
  if (payload._sd_alg !== undefined && payload._sd_alg !== 'sha-256') {
    return invalid(`the payload's _sd_alg is ${shown(payload._sd_alg)}, not sha-256`);
  }
  if (new Set(parsed.disclosures).size !== parsed.disclosures.length) {
    return invalid('the same disclosure is presented twice');
  }
  let sdJwt: SDJwt;
  try {
    sdJwt = await SDJwt.fromEncode(parsed.withoutKb, sha256);
  } catch {
    return invalid('a disclosure is not the base64url of a JSON array of two or three elements');
  }
  const byDigest = new Map<string, Disclosure>();
  for (const disclosure of sdJwt.disclosures ?? []) {
    const problem = shapeProblem(disclosure);
    if (problem !== undefined) return invalid(problem);
    byDigest.set(await disclosure.digest({ alg: 'sha-256', hasher: sha256 }), disclosure);
  }
  const walked = walk(payload, byDigest);
  if (walked !== undefined) return walked;
  return { claims: await sdJwt.getClaims<Json>(sha256) };
}

/** Why a disclosure cannot stand: a salt or claim name that is no string, or a reserved name. */
function shapeProblem(disclosure: Disclosure): string | undefined {
  if (typeof disclosure.salt !== 'string') return "a disclosure's salt is not a string";
  const raw = disclosure.decode();
  if (raw.length === 2) return undefined;
  const { key } = disclosure;
  if (typeof key !== 'string' || key === '') return "a disclosure's claim name is not a string";
  // §4.2.1: `_sd` and `...` may not be disclosed; `__proto__` would not survive the unpacking.
  if (key === '_sd' || key === '...' || key === '__proto__') {
    return `a disclosure names the reserved claim ${key}`;
  }
  return undefined;
}

/**
 * Walks the payload and every disclosure it reaches, once each, within the limits; answers the first
 * problem, or undefined when every disclosure was reached exactly once from a place of its kind.
 */
function walk(payload: Json, byDigest: Map<string, Disclosure>): SdJwtProblem | undefined {
  const used = new Set<string>();
  let values = 0;
  const pending: [unknown, number][] = [[payload, 0]];
  const reach = (digest: unknown, depth: number, inArray: boolean): SdJwtProblem | undefined => {
    if (typeof digest !== 'string') return invalid('a digest in the payload is not a string');
    if (used.has(digest)) return invalid('a digest appears more than once in the payload');
    used.add(digest);
    const disclosure = byDigest.get(digest);
    if (disclosure === undefined) return undefined;
    if (inArray !== (disclosure.decode().length === 2)) {
      return invalid(
        inArray
          ? 'an array element digest names a disclosure of an object property'
          : 'an _sd digest names a disclosure of an array element',
      );
    }
    pending.push([disclosure.value, depth + 1]);
    return undefined;
  };
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth] = next;
    if (++values > sdJwtPresentationLimits.values) {
      return malformed(`the credential has more than ${sdJwtPresentationLimits.values} values`);
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= sdJwtPresentationLimits.depth) {
      return malformed(
        `the credential is nested more than ${sdJwtPresentationLimits.depth} levels`,
      );
    }
    const problem = Array.isArray(value)
      ? arrayProblem(value, depth, reach, pending)
      : objectProblem(value as Json, depth, byDigest, reach, pending);
    if (problem !== undefined) return problem;
  }
  if ([...byDigest.keys()].some((digest) => !used.has(digest))) {
    return invalid("a disclosure's digest is not in the signed payload");
  }
  return undefined;
}

type Reach = (digest: unknown, depth: number, inArray: boolean) => SdJwtProblem | undefined;

function arrayProblem(
  array: unknown[],
  depth: number,
  reach: Reach,
  pending: [unknown, number][],
): SdJwtProblem | undefined {
  for (const element of array) {
    const isDigest =
      typeof element === 'object' &&
      element !== null &&
      !Array.isArray(element) &&
      Object.hasOwn(element, '...');
    if (!isDigest) {
      pending.push([element, depth + 1]);
      continue;
    }
    if (Object.keys(element).length !== 1) {
      return invalid('an array element digest object has members beside `...`');
    }
    const problem = reach((element as Json)['...'], depth, true);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function objectProblem(
  object: Json,
  depth: number,
  byDigest: Map<string, Disclosure>,
  reach: Reach,
  pending: [unknown, number][],
): SdJwtProblem | undefined {
  const { _sd: digests, ...plain } = object;
  for (const child of Object.values(plain)) pending.push([child, depth + 1]);
  if (digests === undefined) return undefined;
  if (!Array.isArray(digests)) return invalid('an _sd member is not an array');
  const names = new Set(Object.keys(plain));
  for (const digest of digests) {
    const problem = reach(digest, depth, false);
    if (problem !== undefined) return problem;
    const key = byDigest.get(digest as string)?.key;
    if (key === undefined) continue;
    // SD-JWT VC draft §3.2.2.2: a hidden status, cnf or exp would let the holder withhold it.
    if (depth === 0 && nonDisclosableClaims.has(key)) {
      return invalid(`a disclosure names the claim ${key}, which may not be selectively disclosed`);
    }
    // §7.1 step 3.c.ii.3: a disclosed claim may not name one that is already there.
    if (names.has(key)) return invalid('a disclosed claim name appears twice in one object');
    names.add(key);
  }
  return undefined;
}
