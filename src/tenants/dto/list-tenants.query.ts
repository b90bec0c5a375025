import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery } from '../../common/page-query.js';

export const sortFields = ['id', 'label', 'createdAt', 'updatedAt'] as const;
export type SortField = (typeof sortFields)[number];
export const sortValues = sortFields.flatMap((field) => [field, `${field},asc`, `${field},desc`]);

export class ListTenantsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Sort field and direction; the id breaks ties. Direction defaults to asc.',
    default: 'createdAt,desc',
    enum: sortValues,
    example: 'label,asc',
  })
  @IsOptional()
  @IsIn(sortValues, {
    message: `must be one of ${sortFields.join('|')}, optionally with ,asc or ,desc`,
  })
  sort?: string;

  @ApiPropertyOptional({
    description: 'Matches id or label, case-insensitive, anywhere in the text.',
    maxLength: 200,
    example: 'acme',
  })
  @IsOptional()
  @IsString({ message: 'must be a string' })
  @MaxLength(200, { message: 'must be at most 200 characters' })
  @Matches(/^[^\p{Cc}\p{Cs}]*$/u, {
    message: 'must not contain control characters or broken Unicode',
  })
  q?: string;
}
