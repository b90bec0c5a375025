import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

const wholeNumber = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value,
  );

/** `page` and `size` of every Spring-style list; a list's query class extends it with its filters. */
export class PageQuery {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'Page number, from 0.',
    default: 0,
    minimum: 0,
    maximum: 100_000_000,
    example: 0,
  })
  @wholeNumber()
  @IsOptional()
  // class-validator runs these bottom-up and stops at the first failure: the type check comes first.
  @Max(100_000_000, { message: 'must be at most 100000000' })
  @Min(0, { message: 'must be 0 or more' })
  @IsInt({ message: 'must be a whole number' })
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    description: 'Page size.',
    default: 20,
    minimum: 1,
    maximum: 100,
    example: 20,
  })
  @wholeNumber()
  @IsOptional()
  @Max(100, { message: 'must be 1-100' })
  @Min(1, { message: 'must be 1-100' })
  @IsInt({ message: 'must be a whole number' })
  size?: number;
}

/** The rows a page covers: its number and size, defaults applied, and how many rows come before it. */
export function pageWindow(query: PageQuery): { page: number; size: number; offset: number } {
  const page = query.page ?? 0;
  const size = query.size ?? 20;
  return { page, size, offset: page * size };
}

/** A Spring page (`content`, `number`, `size`, `totalElements`, `totalPages`). */
export function springPage<Item>(
  content: Item[],
  { page, size }: { page: number; size: number },
  total: number,
) {
  return {
    content,
    number: page,
    size,
    totalElements: total,
    totalPages: Math.ceil(total / size),
  };
}

/** What a list's `sort` accepts for these fields: each alone or with `,asc` or `,desc`. */
export function sortValuesOf(fields: readonly string[]): string[] {
  return fields.flatMap((field) => [field, `${field},asc`, `${field},desc`]);
}

/** A page of one list, sorted by one field, then by id, the same way. */
export interface SortedPageRequest<Field extends string> {
  by: Field;
  direction: 'ASC' | 'DESC';
  offset: number;
  size: number;
}

/** The validated `sort` (see `sortValuesOf`) and page of a list as its repository takes them. */
export function sortedPage<Field extends string>(
  query: PageQuery & { sort?: string },
): SortedPageRequest<Field> & { page: number } {
  const window = pageWindow(query);
  const [field, direction] = (query.sort ?? 'createdAt,desc').split(',') as [Field, string?];
  return { ...window, by: field, direction: direction === 'desc' ? 'DESC' : 'ASC' };
}
