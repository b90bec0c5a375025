import { DateOnly } from '@owf/mdoc';
import { drivingPrivileges, elementType, type ElementType } from './element-types.js';

/** What an offer's element values may hold: bounds the work before anything is signed. */
export const elementLimits = {
  namespaces: 10,
  elementsPerNamespace: 100,
  identifierChars: 256,
  stringChars: 4096,
  /** base64url characters of a byte string (a portrait), about 384 KiB of bytes. */
  bytesChars: 512 * 1024,
  depth: 5,
  arrayItems: 100,
  objectMembers: 100,
} as const;

type ElementError = { path: string[]; message: string };

const fullDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An offer's claims for an mdoc (JSON keyed by namespace, then element) as the values to sign: the
 * known elements of the mDL and PID namespaces typed as ISO/IEC 18013-5 §7.2.1 wants them (dates as
 * full-date, tag 1004; portraits as byte strings from base64url; bools and unsigned integers), other
 * elements as their JSON types. A value of the wrong type, or beyond the limits, is an error naming
 * `[namespace, element]`.
 */
export function elementValues(
  namespaces: unknown,
): { values: Record<string, Record<string, unknown>> } | { errors: ElementError[] } {
  if (!isObject(namespaces)) {
    return { errors: [{ path: [], message: 'must be an object keyed by namespace' }] };
  }
  const entries = Object.entries(namespaces);
  if (entries.length === 0 || entries.length > elementLimits.namespaces) {
    return {
      errors: [{ path: [], message: `must hold 1 to ${elementLimits.namespaces} namespaces` }],
    };
  }
  const errors: ElementError[] = [];
  // Object.fromEntries: a `__proto__` key stays an own member, never the prototype.
  const values: [string, Record<string, unknown>][] = [];
  for (const [namespace, elements] of entries) {
    const problem = namespaceProblem(namespace, elements);
    if (problem !== undefined) {
      errors.push({ path: [namespace], message: problem });
      continue;
    }
    const typed: [string, unknown][] = [];
    for (const [element, value] of Object.entries(elements as Record<string, unknown>)) {
      const result = valueOf(namespace, element, value);
      if ('error' in result) errors.push({ path: [namespace, element], message: result.error });
      else typed.push([element, result.value]);
    }
    values.push([namespace, Object.fromEntries(typed)]);
  }
  return errors.length > 0 ? { errors } : { values: Object.fromEntries(values) };
}

function namespaceProblem(namespace: string, elements: unknown): string | undefined {
  if (namespace === '' || namespace.length > elementLimits.identifierChars) {
    return `a namespace is 1 to ${elementLimits.identifierChars} characters`;
  }
  if (!isObject(elements)) return 'must be an object keyed by element identifier';
  const identifiers = Object.keys(elements);
  if (identifiers.length === 0 || identifiers.length > elementLimits.elementsPerNamespace) {
    return `must hold 1 to ${elementLimits.elementsPerNamespace} elements`;
  }
  if (identifiers.some((id) => id === '' || id.length > elementLimits.identifierChars)) {
    return `an element identifier is 1 to ${elementLimits.identifierChars} characters`;
  }
  return undefined;
}

type Typed = { value: unknown } | { error: string };

function valueOf(namespace: string, element: string, value: unknown): Typed {
  if (namespace === drivingPrivileges.namespace && element === drivingPrivileges.element) {
    return privilegesOf(value);
  }
  const type = elementType(namespace, element);
  return type === undefined ? jsonValue(value, 0) : typed(type, value);
}

/** A known element's value as its CBOR type wants it. */
function typed(type: ElementType, value: unknown): Typed {
  switch (type) {
    case 'full-date':
      return typeof value === 'string' && isFullDate(value)
        ? { value: new DateOnly(value) }
        : { error: 'must be a full-date (YYYY-MM-DD)' };
    case 'tdate':
      return typeof value === 'string' && dateTime.test(value) && !isNaN(Date.parse(value))
        ? { value: new Date(value) }
        : { error: 'must be an RFC 3339 date-time' };
    case 'bytes':
      return typeof value === 'string' &&
        value.length > 0 &&
        value.length <= elementLimits.bytesChars &&
        /^[A-Za-z0-9_-]+$/.test(value)
        ? { value: new Uint8Array(Buffer.from(value, 'base64url')) }
        : { error: `must be base64url of at most ${elementLimits.bytesChars} characters` };
    case 'bool':
      return typeof value === 'boolean' ? { value } : { error: 'must be a boolean' };
    case 'uint':
      return Number.isSafeInteger(value) && (value as number) >= 0
        ? { value }
        : { error: 'must be an unsigned integer' };
    case 'string':
      return typeof value === 'string' && value.length <= elementLimits.stringChars
        ? { value }
        : { error: `must be a string of at most ${elementLimits.stringChars} characters` };
  }
}

/** `driving_privileges` (ISO/IEC 18013-5 §7.2.4): its `issue_date` and `expiry_date` are full-dates. */
function privilegesOf(value: unknown): Typed {
  if (!Array.isArray(value) || value.length > elementLimits.arrayItems) {
    return { error: `must be an array of at most ${elementLimits.arrayItems} objects` };
  }
  const privileges: unknown[] = [];
  for (const privilege of value) {
    if (!isObject(privilege)) return { error: 'must be an array of objects' };
    const json = jsonValue(privilege, 1);
    if ('error' in json) return json;
    const typedPrivilege = json.value as Record<string, unknown>;
    for (const member of ['issue_date', 'expiry_date']) {
      if (!Object.hasOwn(privilege, member)) continue;
      const date = typed('full-date', privilege[member]);
      if ('error' in date) return { error: `${member} ${date.error}` };
      typedPrivilege[member] = date.value;
    }
    privileges.push(typedPrivilege);
  }
  return { value: privileges };
}

/** An unknown element's JSON value, bounded; objects stay string-keyed maps. */
function jsonValue(value: unknown, depth: number): Typed {
  if (depth > elementLimits.depth) return { error: `nests deeper than ${elementLimits.depth}` };
  if (value === null || typeof value === 'boolean') return { value };
  if (typeof value === 'number') {
    return Number.isFinite(value) ? { value } : { error: 'must be a finite number' };
  }
  if (typeof value === 'string') {
    return value.length <= elementLimits.stringChars
      ? { value }
      : { error: `holds a string longer than ${elementLimits.stringChars} characters` };
  }
  if (Array.isArray(value)) {
    if (value.length > elementLimits.arrayItems) {
      return { error: `holds an array of more than ${elementLimits.arrayItems} items` };
    }
    const items: unknown[] = [];
    for (const item of value) {
      const result = jsonValue(item, depth + 1);
      if ('error' in result) return result;
      items.push(result.value);
    }
    return { value: items };
  }
  if (isObject(value)) {
    const members = Object.entries(value);
    if (members.length > elementLimits.objectMembers) {
      return { error: `holds an object of more than ${elementLimits.objectMembers} members` };
    }
    const object: [string, unknown][] = [];
    for (const [key, member] of members) {
      const result = jsonValue(member, depth + 1);
      if ('error' in result) return result;
      object.push([key, result.value]);
    }
    return { value: Object.fromEntries(object) };
  }
  return { error: 'is not a JSON value' };
}

/** A real calendar date in YYYY-MM-DD (RFC 3339 full-date). */
function isFullDate(text: string): boolean {
  const match = fullDate.exec(text);
  if (match === null) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return (
    !isNaN(date.getTime()) &&
    date.getUTCFullYear() === Number(match[1]) &&
    date.getUTCMonth() + 1 === Number(match[2]) &&
    date.getUTCDate() === Number(match[3])
  );
}
