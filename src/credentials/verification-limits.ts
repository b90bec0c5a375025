import { type FieldError } from '../common/problem/problem.js';
import { asArray, idOf, isJsonObject } from './credential-checks.js';

type Json = Record<string, unknown>;

/**
 * What a credential, presentation or remote status list may hold, checked before any library reads
 * it: each bounds a step whose cost grows with it (docs/credentials.md, "Limits"). A real credential
 * meets none of them.
 */
export const verificationLimits = {
  /**
   * An Ed25519 or P-256 signature, the kinds verified here, is 64 bytes: 86-88 base58btc or 86
   * base64url characters after the multibase prefix. Base58 decoding takes time quadratic in the length.
   */
  proofValueChars: 100,
  /** Issuer, holder, verificationMethod, statusListCredential: a did:key method URL has 105. */
  urlChars: 2_048,
  /** Entries of any one `@context`: credentials name two to five. */
  contextEntries: 16,
  /**
   * Objects, arrays, strings, numbers, booleans and nulls in one document, counted through every
   * level: canonicalization grows faster than linearly with them (an issued example credential has 27).
   */
  documentValues: 1_000,
  /** Levels of nesting, as for request bodies; a remote status list is not a request body. */
  documentDepth: 32,
  /** Proofs on one document: each canonicalizes the whole document again (a set or chain of 2-3). */
  proofs: 4,
  /** Status entries of one credential: the specification defines four purposes. */
  statusEntries: 8,
  /** Credentials in one presentation. */
  credentials: 8,
  /** Values of a credential to issue are fewer by this: room for the proof and status it gets. */
  issueReserve: 50,
} as const;

/**
 * Status lists on other origins. A list of the minimum 131,072 entries is 16 kB uncompressed: even
 * when its bits are noise, GZIP, base64url and a proof bring it to about 23 kB.
 */
export const remoteStatusListLimits = {
  /** The most of a list's answer read: room for a noisy list of the minimum length, near three times. */
  bytes: 64 * 1024,
  /** The most a list may inflate to: 16,777,216 entries, 128 times the minimum length. */
  inflatedBytes: 2 * 1024 * 1024,
  /** Lists one request fetches at the same time. */
  fetchesAtOnce: 4,
  /** What one request may wait for all its status lists, and one fetch for its answer. */
  deadlineMs: 5_000,
  /** A list that could not be used is not fetched again for this long. */
  failureTtlMs: 30_000,
  /** A verified list is remembered as its Cache-Control allows, never longer than this. */
  maxTtlMs: 300_000,
  /** Lists remembered, verified or failed. */
  remembered: 1_000,
} as const;

const limits = verificationLimits;

/**
 * Where `document` exceeds a limit, as 400 field errors under `prefix` (`verifiableCredential`);
 * empty when it is within all of them. The members the checks read first, then the whole document,
 * walked once without recursion.
 */
export function documentLimitErrors(
  document: Json,
  prefix: string,
  maxValues: number = limits.documentValues,
): FieldError[] {
  const errors = proofLimitErrors(document, prefix);
  for (const member of ['issuer', 'holder'] as const) {
    const id = idOf(document[member]);
    if (id !== undefined && id.length > limits.urlChars) {
      errors.push({ field: `${prefix}.${member}`, message: longer(limits.urlChars) });
    }
  }
  errors.push(...statusLimitErrors(document, prefix));
  return errors.length > 0 ? errors : walkErrors(document, prefix, maxValues);
}

function statusLimitErrors(document: Json, prefix: string): FieldError[] {
  const entries = asArray(document.credentialStatus);
  if (entries.length > limits.statusEntries) {
    return [
      {
        field: `${prefix}.credentialStatus`,
        message: `has more than ${limits.statusEntries} entries`,
      },
    ];
  }
  const errors: FieldError[] = [];
  for (const [index, entry] of entries.entries()) {
    const url = isJsonObject(entry) ? entry.statusListCredential : undefined;
    if (typeof url === 'string' && url.length > limits.urlChars) {
      const where = Array.isArray(document.credentialStatus) ? `[${index}]` : '';
      errors.push({
        field: `${prefix}.credentialStatus${where}.statusListCredential`,
        message: longer(limits.urlChars),
      });
    }
  }
  return errors;
}

/** A presentation's limits, and each of its credentials' (named by their place in it). */
export function presentationLimitErrors(presentation: Json, prefix: string): FieldError[] {
  const credentials = asArray(presentation.verifiableCredential);
  if (credentials.length > limits.credentials) {
    return [
      {
        field: `${prefix}.verifiableCredential`,
        message: `has more than ${limits.credentials} credentials`,
      },
    ];
  }
  const errors = documentLimitErrors(presentation, prefix);
  if (errors.length > 0) return errors;
  for (const [index, credential] of credentials.entries()) {
    if (isJsonObject(credential)) {
      errors.push(...documentLimitErrors(credential, `${prefix}.verifiableCredential[${index}]`));
    }
  }
  return errors;
}

/** The proofs' count, and each proof's value and verification method length. */
function proofLimitErrors(document: Json, prefix: string): FieldError[] {
  const proofs = asArray(document.proof);
  if (proofs.length > limits.proofs) {
    return [{ field: `${prefix}.proof`, message: `has more than ${limits.proofs} proofs` }];
  }
  const errors: FieldError[] = [];
  for (const [index, proof] of proofs.entries()) {
    if (!isJsonObject(proof)) continue;
    const where = `${prefix}.proof${Array.isArray(document.proof) ? `[${index}]` : ''}`;
    const { proofValue } = proof;
    if (typeof proofValue === 'string' && proofValue.length > limits.proofValueChars) {
      errors.push({
        field: `${where}.proofValue`,
        message: `${longer(limits.proofValueChars)}: an Ed25519 or P-256 signature has 86-88`,
      });
    }
    const method = idOf(proof.verificationMethod);
    if (method !== undefined && method.length > limits.urlChars) {
      errors.push({ field: `${where}.verificationMethod`, message: longer(limits.urlChars) });
    }
  }
  return errors;
}

/** Values, depth and `@context` entries, anywhere in the document; the first excess found. */
function walkErrors(document: Json, prefix: string, maxValues: number): FieldError[] {
  const pending: [unknown, number, string][] = [[document, 0, prefix]];
  let values = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, depth, path] = next;
    if (++values > maxValues) {
      return [{ field: prefix, message: `has more than ${maxValues} JSON values` }];
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= limits.documentDepth) {
      return [{ field: prefix, message: `is nested more than ${limits.documentDepth} levels` }];
    }
    const context = (value as Json)['@context'];
    if (Array.isArray(context) && context.length > limits.contextEntries) {
      return [
        { field: `${path}.@context`, message: `has more than ${limits.contextEntries} entries` },
      ];
    }
    for (const [key, child] of Object.entries(value)) {
      pending.push([child, depth + 1, Array.isArray(value) ? `${path}[${key}]` : `${path}.${key}`]);
    }
  }
  return [];
}

function longer(chars: number): string {
  return `is longer than ${chars} characters`;
}
