import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { DomainException } from './problem/domain.exception.js';
import { PageQuery, pageWindow } from './page-query.js';

/**
 * `page` and `size`, or `after` and `size`: the query of an unbounded list (newest first), whose deep
 * pages would otherwise walk every row before them.
 */
export class CursorPageQuery extends PageQuery {
  @ApiPropertyOptional({
    description:
      'Opaque cursor: the `after` of the previous answer. The page of `size` items after it, newest ' +
      'first, as cheap however deep; `page` must then be absent or 0 (docs/api.md, Pages).',
    maxLength: 4096,
    example: 'WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMDAwMFoiLCJ1cm46dXVpZDoxIl0',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(4096, { message: 'must be at most 4096 characters' })
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'must be the `after` of a previous answer' })
  after?: string;
}

/** Where a cursor points: the last item's time (microseconds, UTC) and id. */
export interface Cursor {
  at: string;
  id: string;
}

/** The ids of lists keyed by a uuid, lower case as PostgreSQL gives them. */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const cursorTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** The exact time (microseconds) of a timestamptz column as a cursor keeps it. */
export const cursorTimeSql = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Rows after the cursor ($at, $id) in the order `time DESC, id ASC`. */
export const afterCursorSql = (time: string, id: string, at: string, cursorId: string) =>
  `(${time} < CAST(${at} AS timestamptz) OR (${time} = CAST(${at} AS timestamptz) AND ${id} > ${cursorId}))`;

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url');
}

/** The window of a page: by number (offset) or, with `after`, by cursor; `idPattern` checks ids. */
export function cursorWindow(
  query: CursorPageQuery,
  idPattern: RegExp,
): { page: number; size: number; offset: number; after?: Cursor } {
  const window = pageWindow(query);
  if (query.after === undefined) return window;
  if (window.page !== 0) {
    throw new DomainException('VALIDATION_FAILED', 'Give a page number or a cursor, not both.', [
      { field: 'page', message: 'must be absent or 0 with after' },
    ]);
  }
  return { ...window, after: decodeCursor(query.after, idPattern) };
}

function decodeCursor(text: string, idPattern: RegExp): Cursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  if (
    Array.isArray(decoded) &&
    decoded.length === 2 &&
    typeof decoded[0] === 'string' &&
    cursorTime.test(decoded[0]) &&
    !Number.isNaN(Date.parse(decoded[0])) &&
    typeof decoded[1] === 'string' &&
    idPattern.test(decoded[1])
  ) {
    return { at: decoded[0], id: decoded[1] };
  }
  throw new DomainException('VALIDATION_FAILED', 'The cursor is not one this list gave.', [
    { field: 'after', message: 'must be the `after` of a previous answer' },
  ]);
}

/**
 * A Spring page with `after`, the cursor of its last item (null when no item follows it). A page
 * by cursor counts nothing: its `number`, `totalElements` and `totalPages` are null.
 */
export function cursorPage<Item>(
  content: Item[],
  window: { page: number; size: number; after?: Cursor },
  total: number | undefined,
  last: Cursor | undefined,
  more: boolean,
) {
  const counted = window.after === undefined && total !== undefined;
  return {
    content,
    number: counted ? window.page : null,
    size: window.size,
    totalElements: counted ? total : null,
    totalPages: counted ? Math.ceil(total / window.size) : null,
    after: more && last !== undefined ? encodeCursor(last) : null,
  };
}
