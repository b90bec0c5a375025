import { dateRegex } from '@digitalbazaar/vc';
import { type FieldError } from '../common/problem/problem.js';

type Json = Record<string, unknown>;

export const credentialsV1 = 'https://www.w3.org/2018/credentials/v1';
export const credentialsV2 = 'https://www.w3.org/ns/credentials/v2';

/** The data model version its first context names, or undefined when it names neither. */
export function dataModelOf(credential: Json): 1 | 2 | undefined {
  const contexts = credential['@context'];
  const first: unknown = Array.isArray(contexts) ? contexts[0] : contexts;
  if (first === credentialsV2) return 2;
  if (first === credentialsV1) return 1;
  return undefined;
}

/** A JSON-LD member that may hold one value or several, as a list (none when absent). */
export function asArray(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function isJsonObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A member naming something by URL, as a string or as an object with an `id` (issuer, holder). */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isJsonObject(value) && typeof value.id === 'string' ? value.id : undefined;
}

export function issuerIdOf(credential: Json): string | undefined {
  return idOf(credential.issuer);
}

/** A credential or presentation's contexts: a list that starts with a credentials context. */
export function contextErrors(document: Json, prefix: string): FieldError[] {
  if (Array.isArray(document['@context']) && dataModelOf(document) !== undefined) return [];
  return [
    {
      field: `${prefix}@context`,
      message: `must be a list starting with '${credentialsV2}' (or '${credentialsV1}')`,
    },
  ];
}

/** Members whose every value is an object with a `type` (VC Data Model 2.0 §4). */
const typedMembers = ['credentialStatus', 'termsOfUse', 'evidence'] as const;

/** An absolute URL (a DID or URN too), as the data model asks of ids. */
export function isUrl(value: unknown): boolean {
  // A control character is no part of a URL (RFC 3986 §2), though WHATWG parsing would encode it.
  return typeof value === 'string' && !controlCharacter.test(value) && URL.canParse(value);
}

const controlCharacter = /\p{Cc}/u;

/** The date members of each data model version: [not before, not after]. */
const dateMembers = {
  1: ['issuanceDate', 'expirationDate'],
  2: ['validFrom', 'validUntil'],
} as const;

/** What makes a JSON object a credential at all (VC Data Model 1.1 and 2.0), member by member. */
export function credentialShapeErrors(credential: Json, prefix: string): FieldError[] {
  const errors = contextErrors(credential, prefix);
  const version = dataModelOf(credential);
  if (!asArray(credential.type).includes('VerifiableCredential')) {
    errors.push({ field: `${prefix}type`, message: "must include 'VerifiableCredential'" });
  }
  const subjects = asArray(credential.credentialSubject);
  if (subjects.length === 0 || !subjects.every(isJsonObject)) {
    errors.push({ field: `${prefix}credentialSubject`, message: 'must be an object or objects' });
  } else if (subjects.some((subject) => Object.keys(subject).length === 0)) {
    errors.push({ field: `${prefix}credentialSubject`, message: 'must make a claim' });
  } else if (subjects.some((subject) => subject.id !== undefined && !isUrl(subject.id))) {
    errors.push({ field: `${prefix}credentialSubject.id`, message: 'must be a URL' });
  }
  if (credential.id !== undefined && !isUrl(credential.id)) {
    errors.push({ field: `${prefix}id`, message: 'must be a URL' });
  }
  if (credential.issuer !== undefined && !isUrl(issuerIdOf(credential))) {
    errors.push({ field: `${prefix}issuer`, message: 'must be a URL or an object with a URL id' });
  }
  for (const member of typedMembers) {
    const values = asArray(credential[member]);
    if (!values.every((value) => isJsonObject(value) && typeof value.type !== 'undefined')) {
      errors.push({
        field: `${prefix}${member}`,
        message: 'must be an object with a type, or several',
      });
    }
  }
  if (
    asArray(credential.evidence).some(
      (item) => isJsonObject(item) && 'id' in item && !isUrl(item.id),
    )
  ) {
    errors.push({ field: `${prefix}evidence.id`, message: 'must be a URL' });
  }
  for (const member of version === undefined ? [] : dateMembers[version]) {
    const value = credential[member];
    if (value !== undefined && (typeof value !== 'string' || !dateRegex.test(value))) {
      errors.push({ field: `${prefix}${member}`, message: 'must be an XML Schema dateTime' });
    }
  }
  return errors;
}

/** Whether the credential is valid at `now`; a sentence naming the date when it is not. */
export function validityProblem(credential: Json, now: Date): string | undefined {
  const version = dataModelOf(credential) ?? 2;
  const [from, until] = dateMembers[version];
  const notBefore = credential[from];
  const notAfter = credential[until];
  if (typeof notBefore === 'string' && now < new Date(notBefore)) {
    return `not valid before ${from} ${notBefore}`;
  }
  if (typeof notAfter === 'string' && now > new Date(notAfter)) {
    return `expired: ${until} ${notAfter}`;
  }
  return undefined;
}

/**
 * What an issuer must not sign though a verifier would read it (VC Data Model 2.0 §4.9, §4.11, §5.3,
 * §5.4): typed refresh services and schemas, related resources with a digest, a validity period that
 * ends after it starts.
 */
export function issueShapeErrors(credential: Json, prefix: string): FieldError[] {
  const errors: FieldError[] = [];
  const fail = (member: string, message: string) =>
    errors.push({ field: `${prefix}${member}`, message });
  // The types are stored with the issue's record, where PostgreSQL refuses NUL.
  if (
    asArray(credential.type).some((type) => typeof type === 'string' && controlCharacter.test(type))
  ) {
    fail('type', 'must not contain control characters');
  }
  if (!asArray(credential.refreshService).every((one) => isJsonObject(one) && isType(one.type))) {
    fail('refreshService', 'must be an object with a type, or several');
  }
  const schemas = asArray(credential.credentialSchema);
  if (!schemas.every((one) => isJsonObject(one) && isType(one.type))) {
    fail('credentialSchema', 'must be an object with a type, or several');
  } else if (!schemas.every((one) => isUrl((one as Json).id))) {
    fail('credentialSchema.id', 'must be a URL');
  }
  errors.push(...relatedResourceErrors(credential.relatedResource, `${prefix}relatedResource`));
  const version = dataModelOf(credential);
  if (version !== undefined) {
    const [from, until] = dateMembers[version];
    const [start, end] = [credential[from], credential[until]];
    if (
      typeof start === 'string' &&
      typeof end === 'string' &&
      dateRegex.test(start) &&
      dateRegex.test(end) &&
      new Date(start) > new Date(end)
    ) {
      fail(until, `must not be earlier than ${from}`);
    }
  }
  return errors;
}

/** A type is a term or a list of terms. */
function isType(type: unknown): boolean {
  return typeof type === 'string' || (Array.isArray(type) && type.length > 0);
}

/** §5.3: one or more objects, each with a URL `id` of its own and a digest of what it names. */
function relatedResourceErrors(value: unknown, field: string): FieldError[] {
  if (value === undefined) return [];
  const resources = asArray(value);
  if (resources.length === 0 || !resources.every(isJsonObject)) {
    return [{ field, message: 'must be an object or a list of objects' }];
  }
  const errors: FieldError[] = [];
  const seen = new Set<unknown>();
  for (const [index, resource] of resources.entries()) {
    const where = Array.isArray(value) ? `${field}[${index}]` : field;
    if (!isUrl(resource.id)) errors.push({ field: `${where}.id`, message: 'must be a URL' });
    else if (seen.has(resource.id)) {
      errors.push({ field: `${where}.id`, message: 'must differ from the other entries' });
    }
    seen.add(resource.id);
    if (resource.digestSRI === undefined && resource.digestMultibase === undefined) {
      errors.push({ field: where, message: 'must have a digestSRI or a digestMultibase' });
    }
  }
  return errors;
}
