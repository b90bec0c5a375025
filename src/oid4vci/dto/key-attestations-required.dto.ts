import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, Matches } from 'class-validator';

const level = /^[A-Za-z0-9_.:-]{1,64}$/;
const levelsMessage = 'must hold 1-64 characters of A-Z a-z 0-9 _ . : - each';

/**
 * What key attestations a configuration requires of a JWT proof (OpenID4VCI 1.0 Appendix D.1,
 * `key_attestations_required`): the attack-potential resistance levels (ISO 18045 names, such as
 * `iso_18045_high`) of which the attestation must claim one; no member: any trusted attestation.
 */
export class KeyAttestationsRequiredDto {
  @ApiPropertyOptional({
    type: [String],
    maxItems: 8,
    description: 'Key storage levels, one of which `key_storage` must claim.',
    example: ['iso_18045_high', 'iso_18045_moderate'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @Matches(level, { each: true, message: levelsMessage })
  key_storage?: string[];

  @ApiPropertyOptional({
    type: [String],
    maxItems: 8,
    description: 'User authentication levels, one of which `user_authentication` must claim.',
    example: ['iso_18045_high'],
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8)
  @Matches(level, { each: true, message: levelsMessage })
  user_authentication?: string[];
}
