import { ApiProperty } from '@nestjs/swagger';
import { NumberedPageDto } from '../../common/page-dto.js';

/** A whole tenant as the API answers it, for the OpenAPI examples. */
export const tenantExample = {
  id: 'acme',
  label: 'ACME Corp',
  imageUrl: 'https://acme.example/logo.png',
  did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  createdAt: '2025-01-31T09:30:00.000Z',
  updatedAt: '2025-02-01T16:05:12.345Z',
} as const;

export class TenantDto {
  @ApiProperty({
    description: 'Tenant id, case-sensitive and immutable.',
    example: tenantExample.id,
  })
  id: string;

  @ApiProperty({ description: 'Human-readable name.', example: tenantExample.label })
  label: string;

  @ApiProperty({
    description: 'Logo or picture of the tenant (an http or https URL), or null.',
    type: String,
    nullable: true,
    example: tenantExample.imageUrl,
  })
  imageUrl: string | null;

  @ApiProperty({
    description: "The tenant's DID, made with the tenant.",
    example: tenantExample.did,
  })
  did: string;

  @ApiProperty({ format: 'date-time', example: tenantExample.createdAt })
  createdAt: string;

  @ApiProperty({ format: 'date-time', example: tenantExample.updatedAt })
  updatedAt: string;
}

export class TenantPageDto extends NumberedPageDto(
  TenantDto,
  'Tenants matching, on all pages. Exact on the last page, for a filtered list (q, or the tenants ' +
    "of an agent-user's claim) and up to 10,000 tenants; above that an unfiltered list reports " +
    "PostgreSQL's estimate, which follows the table's size closely.",
) {}
