import { type Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/** A Spring page of `Item`s as Lissi Agent's lists answer it. */
export interface NumberedPage<Item> {
  content: Item[];
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** A page of a list that also pages by cursor (`after`): on such a page nothing is counted. */
export interface CursorPage<Item> {
  content: Item[];
  number: number | null;
  size: number;
  totalElements: number | null;
  totalPages: number | null;
  after: string | null;
}

/**
 * The base of a list's page DTO, for OpenAPI: `class TenantPageDto extends NumberedPageDto(TenantDto)`.
 * The subclass gives the schema its name; `totalElements` may say how it is counted.
 */
export function NumberedPageDto<Item>(
  item: Type<Item>,
  totalElementsDescription = 'Items matching, on all pages.',
): Type<NumberedPage<Item>> {
  class Page implements NumberedPage<Item> {
    @ApiProperty({ type: [item] })
    content!: Item[];

    @ApiProperty({ type: 'integer', description: 'Page number, from 0.', example: 0 })
    number!: number;

    @ApiProperty({ type: 'integer', description: 'Page size asked for.', example: 20 })
    size!: number;

    @ApiProperty({ type: 'integer', description: totalElementsDescription, example: 1 })
    totalElements!: number;

    @ApiProperty({ type: 'integer', description: 'Pages of this size.', example: 1 })
    totalPages!: number;
  }
  return Page;
}

/** The base of the page DTO of a list that pages by number or by cursor (`after`). */
export function CursorPageDto<Item>(item: Type<Item>): Type<CursorPage<Item>> {
  class Page implements CursorPage<Item> {
    @ApiProperty({ type: [item] })
    content!: Item[];

    @ApiProperty({
      type: 'integer',
      nullable: true,
      example: 0,
      description: 'The page number; null on a page by cursor (`after`).',
    })
    number!: number | null;

    @ApiProperty({ type: 'integer', example: 20 })
    size!: number;

    @ApiProperty({
      type: 'integer',
      nullable: true,
      example: 1,
      description: 'null on a page by cursor (`after`), which counts nothing.',
    })
    totalElements!: number | null;

    @ApiProperty({
      type: 'integer',
      nullable: true,
      example: 1,
      description: 'null on a page by cursor (`after`).',
    })
    totalPages!: number | null;

    @ApiProperty({
      type: 'string',
      nullable: true,
      example: 'WyIyMDI2LTExLTI1VDEwOjAwOjAwLjAwMDAwMFoiLCJ1cm46dXVpZDoxIl0',
      description:
        'Opaque cursor of the last item: pass it as `after` for the next page; null when none follows.',
    })
    after!: string | null;
  }
  return Page;
}
