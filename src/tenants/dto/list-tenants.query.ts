import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

const wholeNumber = () =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value,
  );

export const sortFields = ['id', 'label', 'createdAt', 'updatedAt'] as const;
export type SortField = (typeof sortFields)[number];
export const sortValues = sortFields.flatMap((field) => [field, `${field},asc`, `${field},desc`]);

export class ListTenantsQuery {
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
