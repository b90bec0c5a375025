import { createHash } from 'node:crypto';
import { type IncomingMessage } from 'node:http';
import { DomainException } from '../common/problem/domain.exception.js';

export const idempotencyKeyHeader = 'Idempotency-Key';
export const maxIdempotencyKeyLength = 255;

/** 1-255 printable ASCII characters (space to tilde). */
const keyPattern = /^[\x20-\x7e]{1,255}$/;
/** An RFC 8941 sf-string, as the IETF draft writes the key: quoted, with \" and \\ escaped. */
const sfString = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The request's idempotency key, or undefined when it sends none (the header is optional). The IETF
 * draft "The Idempotency-Key HTTP Header Field" makes it an sf-string (`"..."`); a bare value is taken as
 * well, and the quotes are not part of the key. More than one header, or a key that is not 1-255
 * printable ASCII characters, is a 400.
 */
export function idempotencyKeyOf(request: IncomingMessage): string | undefined {
  const values = request.headersDistinct[idempotencyKeyHeader.toLowerCase()];
  if (values === undefined) return undefined;
  if (values.length !== 1)
    throw invalidKey(`Send one ${idempotencyKeyHeader} header, not several.`);
  const raw = values[0];
  const quoted = sfString.exec(raw);
  const key = quoted === null ? raw : quoted[1].replace(/\\(["\\])/g, '$1');
  if (!keyPattern.test(key)) {
    throw invalidKey(
      `The ${idempotencyKeyHeader} must be 1-${maxIdempotencyKeyLength} printable ASCII characters; a UUID is a good one.`,
    );
  }
  return key;
}

function invalidKey(detail: string): DomainException {
  return new DomainException('IDEMPOTENCY_KEY_INVALID', detail, [
    { field: idempotencyKeyHeader, message: 'must be 1-255 printable ASCII characters, once' },
  ]);
}

/** Where a key counts: the caller (token subject), the tenant ('' for none), the operation. */
export interface KeyScope {
  subject: string;
  tenantId: string;
  /** Method and route pattern, such as `POST /ctrl/api/v1.0/tenants/create`. */
  operation: string;
}

/** The row id of a key in its scope: a hash, so neither the key nor the caller is stored in the clear. */
export function keyRowId(scope: KeyScope, key: string): string {
  return sha256(JSON.stringify([scope.subject, scope.tenantId, scope.operation, key]));
}

/**
 * The request a key was first used with: its path parameters, query and JSON body, with object members
 * in a canonical order, so that the same request sent with other spacing or member order matches.
 */
export function requestFingerprint(request: {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}): string {
  return sha256(
    canonicalJson({
      params: request.params ?? {},
      query: request.query ?? {},
      body: request.body ?? null,
    }),
  );
}

/** JSON with every object's members sorted by name (the body is at most 32 levels deep). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const members = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
