import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../common/page-query.js';

export const sortFields = ['id', 'createdAt'] as const;
export type SortField = (typeof sortFields)[number];
const sortValues = sortFields.flatMap((field) => [field, `${field},asc`, `${field},desc`]);

export class ListCredentialConfigurationsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Sort field and direction; the id breaks ties. Direction defaults to asc.',
    default: 'createdAt,desc',
    enum: sortValues,
    example: 'id,asc',
  })
  @IsOptional()
  @IsIn(sortValues, {
    message: `must be one of ${sortFields.join('|')}, optionally with ,asc or ,desc`,
  })
  sort?: string;
}
