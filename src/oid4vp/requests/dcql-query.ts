import { DcqlQuery } from 'dcql';
import { type FieldError } from '../../common/problem/problem.js';
import { requestLimits as limits } from './request-limits.js';

/** The credential formats a tenant verifies (OpenID4VP 1.0 appendix B.1, B.2 and B.3). */
export const acceptedFormats = ['dc+sd-jwt', 'ldp_vc', 'mso_mdoc'] as const;

/** What each format's `meta` must name (OpenID4VP 1.0 appendix B): the kinds of credential asked for. */
const requiredMeta: Record<(typeof acceptedFormats)[number], string> = {
  'dc+sd-jwt': 'vct_values',
  ldp_vc: 'type_values',
  mso_mdoc: 'doctype_value',
};

/** The `trusted_authorities` types a tenant checks (OpenID4VP 1.0 §6.1.1): X.509 key identifiers. */
export const acceptedAuthorityTypes = ['aki'] as const;

const field = 'dcqlQuery';
type Json = Record<string, unknown>;

/**
 * A DCQL query (OpenID4VP 1.0 §6) as the request keeps it, or the field errors that refuse it: the
 * size and the counts are bounded before the `dcql` library parses it, the formats are ours, and each
 * query names what it asks for (`vct_values`, `type_values`: required by appendix B). The answer is the
 * library's output: defaults explicit, unknown members dropped.
 */
export function checkDcqlQuery(input: Json): { query: Json } | { errors: FieldError[] } {
  const bounds = boundsErrors(input);
  if (bounds.length > 0) return { errors: bounds };
  let parsed: DcqlQuery.Output;
  try {
    parsed = DcqlQuery.parse(input as DcqlQuery.Input);
    DcqlQuery.validate(parsed);
  } catch (error) {
    return { errors: libraryErrors(error) };
  }
  const reserved = reservedNameErrors(parsed);
  if (reserved.length > 0) return { errors: reserved };
  const missing = parsed.credentials.flatMap(metaErrors);
  return missing.length > 0 ? { errors: missing } : { query: parsed as unknown as Json };
}

/**
 * What a credential query must name: `vct_values` or `type_values` (a non-empty array), or an mdoc's
 * `doctype_value` (a non-empty string), and an mdoc's claims as `path: [namespace, element]` (1.0
 * §6.3; the drafts' `namespace`/`claim_name` pair is what a 1.0 wallet no longer reads).
 */
function metaErrors(credential: DcqlQuery.Output['credentials'][number], index: number) {
  const at = `${field}.credentials.${index}`;
  const name = requiredMeta[credential.format as (typeof acceptedFormats)[number]];
  const value = ((credential as { meta?: Json }).meta ?? {})[name];
  const errors: FieldError[] = [];
  if (credential.format === 'mso_mdoc') {
    if (typeof value !== 'string' || value === '')
      errors.push({ field: `${at}.meta.${name}`, message: 'must be a non-empty string' });
    (credential.claims ?? []).forEach((claim, claimIndex) => {
      if (!('path' in claim))
        errors.push({
          field: `${at}.claims.${claimIndex}.path`,
          message: 'must be [namespace, element]',
        });
    });
  } else if (!Array.isArray(value) || value.length === 0) {
    errors.push({ field: `${at}.meta.${name}`, message: 'must be a non-empty array' });
  }
  return errors;
}

/** The bounds and the formats, checked on the JSON as sent, before any parsing. */
function boundsErrors(input: Json): FieldError[] {
  if (Buffer.byteLength(JSON.stringify(input)) > limits.dcqlBytes) {
    return [{ field, message: `must be at most ${limits.dcqlBytes} bytes of JSON` }];
  }
  if (depthOver(input, limits.dcqlDepth)) {
    return [{ field, message: `must nest at most ${limits.dcqlDepth} levels deep` }];
  }
  const errors: FieldError[] = [];
  const credentials = input.credentials;
  if (!Array.isArray(credentials)) return errors; // The parser names it.
  if (credentials.length > limits.credentialQueries) {
    return [
      {
        field: `${field}.credentials`,
        message: `must hold at most ${limits.credentialQueries} credential queries`,
      },
    ];
  }
  if (
    Array.isArray(input.credential_sets) &&
    input.credential_sets.length > limits.credentialSets
  ) {
    errors.push({
      field: `${field}.credential_sets`,
      message: `must hold at most ${limits.credentialSets} sets`,
    });
  }
  credentials.forEach((credential: unknown, index) => {
    if (typeof credential !== 'object' || credential === null) return;
    const query = credential as Json;
    const at = `${field}.credentials.${index}`;
    if (
      typeof query.format === 'string' &&
      !(acceptedFormats as readonly string[]).includes(query.format)
    ) {
      errors.push({
        field: `${at}.format`,
        message: `'${query.format.slice(0, 64)}' is not supported: only ${acceptedFormats.join(', ')}`,
      });
    }
    const counted: [string, unknown, number][] = [
      ['claims', query.claims, limits.claimsPerQuery],
      ['claim_sets', query.claim_sets, limits.claimSetsPerQuery],
    ];
    for (const [name, value, most] of counted) {
      if (Array.isArray(value) && value.length > most) {
        errors.push({ field: `${at}.${name}`, message: `must hold at most ${most} entries` });
      }
    }
    errors.push(...authorityErrors(query.trusted_authorities, `${at}.trusted_authorities`));
    if (!Array.isArray(query.claims)) return;
    query.claims.forEach((claim: unknown, claimIndex) => {
      const path = (claim as Json | null)?.path;
      // OpenID4VP 1.0 appendix B.2: an mdoc's claim is one element of one namespace.
      if (query.format === 'mso_mdoc' && Array.isArray(path) && path.length !== 2) {
        errors.push({
          field: `${at}.claims.${claimIndex}.path`,
          message: 'must be [namespace, element]',
        });
      } else if (Array.isArray(path) && path.length > limits.pathElements) {
        errors.push({
          field: `${at}.claims.${claimIndex}.path`,
          message: `must hold at most ${limits.pathElements} elements`,
        });
      }
    });
  });
  return errors;
}

/**
 * `trusted_authorities` (OpenID4VP 1.0 §6.1.1) within the bounds and of the types this verifier
 * checks: `aki`, matched against the key identifiers of a credential's x5c chain. `etsi_tl` and
 * `openid_federation` would need trust lists and federations it does not read: refused, not ignored.
 */
function authorityErrors(authorities: unknown, at: string): FieldError[] {
  if (!Array.isArray(authorities)) return []; // The parser names it.
  if (authorities.length > limits.trustedAuthorities) {
    return [{ field: at, message: `must hold at most ${limits.trustedAuthorities} entries` }];
  }
  return authorities.flatMap((authority: unknown, index): FieldError[] => {
    const { type, values } = (authority ?? {}) as Json;
    if (typeof type === 'string' && !(acceptedAuthorityTypes as readonly string[]).includes(type)) {
      return [
        {
          field: `${at}.${index}.type`,
          message: `'${type.slice(0, 64)}' is not supported: only ${acceptedAuthorityTypes.join(', ')}`,
        },
      ];
    }
    return Array.isArray(values) && values.length > limits.authorityValues
      ? [
          {
            field: `${at}.${index}.values`,
            message: `must hold at most ${limits.authorityValues} entries`,
          },
        ]
      : [];
  });
}

/**
 * Names an object inherits (`__proto__`, `constructor`, `toString`, ...): as an id they would replace
 * the prototype of the outcome's record, as a claim path step they would read as disclosed when the
 * wallet disclosed nothing by that name.
 */
const inheritedNames: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** Credential query ids, claim ids and claim path steps that name an inherited member. */
function reservedNameErrors(parsed: DcqlQuery.Output): FieldError[] {
  const errors: FieldError[] = [];
  const refuse = (at: string, name: string) =>
    errors.push({ field: at, message: `'${name}' is a reserved name` });
  parsed.credentials.forEach((credential, index) => {
    const at = `${field}.credentials.${index}`;
    if (inheritedNames.has(credential.id)) refuse(`${at}.id`, credential.id);
    (credential.claims ?? []).forEach((claim, claimIndex) => {
      const claimAt = `${at}.claims.${claimIndex}`;
      if (claim.id !== undefined && inheritedNames.has(claim.id)) refuse(`${claimAt}.id`, claim.id);
      const path: unknown[] = 'path' in claim ? claim.path : [];
      path.forEach((step, stepIndex) => {
        if (typeof step === 'string' && inheritedNames.has(step))
          refuse(`${claimAt}.path.${stepIndex}`, step);
      });
    });
  });
  return errors;
}

/** Whether objects and arrays nest deeper than `most`, without recursing on the caller's input. */
function depthOver(input: unknown, most: number): boolean {
  const stack: [unknown, number][] = [[input, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > most) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The library's complaint as field errors: a schema issue names its path, a rule names the query. */
function libraryErrors(error: unknown): FieldError[] {
  const issues = (error as { issues?: { message: string; path?: { key: unknown }[] }[] }).issues;
  if (Array.isArray(issues) && issues.length > 0) {
    return issues.slice(0, 10).map((issue) => ({
      field: [field, ...(issue.path ?? []).map((step) => String(step.key))].join('.'),
      message: issue.message.slice(0, 300),
    }));
  }
  const message = error instanceof Error ? error.message : 'is not a valid DCQL query';
  return [{ field, message: message.slice(0, 300) }];
}
