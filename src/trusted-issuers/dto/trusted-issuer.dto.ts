import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageQuery, sortValuesOf } from '../../common/page-query.js';
import { NumberedPageDto } from '../../common/page-dto.js';

export const trustedIssuerExample = {
  id: '2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a',
  tenantId: 'acme',
  issuer: 'did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2',
  description: 'The School of Examples',
  createdAt: '2026-11-25T10:00:00.000Z',
};

export class CreateTrustedIssuerDto {
  @ApiProperty({
    description:
      "The issuer's id exactly as its credentials name it (`issuer` or `issuer.id`): a URL, usually a DID.",
    example: trustedIssuerExample.issuer,
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  @Matches(/^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/, { message: 'must be a URL (a DID, for example)' })
  issuer!: string;

  @ApiPropertyOptional({
    description: 'A note for people.',
    example: trustedIssuerExample.description,
    maxLength: 500,
  })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string;
}

export class TrustedIssuerDto {
  @ApiProperty({ format: 'uuid', example: trustedIssuerExample.id })
  id!: string;

  @ApiProperty({ example: trustedIssuerExample.tenantId })
  tenantId!: string;

  @ApiProperty({ example: trustedIssuerExample.issuer })
  issuer!: string;

  @ApiProperty({ type: 'string', nullable: true, example: trustedIssuerExample.description })
  description!: string | null;

  @ApiProperty({ example: trustedIssuerExample.createdAt })
  createdAt!: string;
}

export class TrustedIssuerPageDto extends NumberedPageDto(TrustedIssuerDto) {}

export const sortFields = ['issuer', 'createdAt'] as const;
export type SortField = (typeof sortFields)[number];
const sortValues = sortValuesOf(sortFields);

export class ListTrustedIssuersQuery extends PageQuery {
  @ApiPropertyOptional({
    description: 'Sort field and direction; the id breaks ties. Direction defaults to asc.',
    default: 'createdAt,desc',
    enum: sortValues,
    example: 'issuer,asc',
  })
  @IsOptional()
  @IsIn(sortValues, {
    message: `must be one of ${sortFields.join('|')}, optionally with ,asc or ,desc`,
  })
  sort?: string;
}
