import { ApiProperty } from '@nestjs/swagger';

export class TenantDto {
  @ApiProperty({ example: 'acme' })
  id: string;

  @ApiProperty({ example: 'ACME Corp' })
  label: string;

  @ApiProperty({ type: String, nullable: true, example: null })
  imageUrl: string | null;

  @ApiProperty({
    description: "The tenant's DID, made with the tenant.",
    example: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  })
  did: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class TenantPageDto {
  @ApiProperty({ type: [TenantDto] })
  content: TenantDto[];

  @ApiProperty({ description: 'Page number, from 0.', example: 0 })
  number: number;

  @ApiProperty({ description: 'Page size asked for.', example: 20 })
  size: number;

  @ApiProperty({ example: 1 })
  totalElements: number;

  @ApiProperty({ example: 1 })
  totalPages: number;
}
