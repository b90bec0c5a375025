import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../../common/page-query.js';

const sortValues = ['createdAt', 'createdAt,asc', 'createdAt,desc'];

export class ListPresentationRequestsQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Sort direction by creation time; the id breaks ties. Direction defaults to asc.',
    default: 'createdAt,desc',
    enum: sortValues,
    example: 'createdAt,desc',
  })
  @IsOptional()
  @IsIn(sortValues, { message: 'must be createdAt, optionally with ,asc or ,desc' })
  sort?: string;
}
