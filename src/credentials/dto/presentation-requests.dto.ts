import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { VerifyPresentationOptionsDto } from './verify-options.dto.js';

export class VerifyPresentationDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'A VerifiablePresentation with an `authentication` proof and the credentials it carries.',
  })
  @IsObject()
  verifiablePresentation!: Record<string, unknown>;

  @ApiPropertyOptional({ type: VerifyPresentationOptionsDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => VerifyPresentationOptionsDto)
  options?: VerifyPresentationOptionsDto;
}
