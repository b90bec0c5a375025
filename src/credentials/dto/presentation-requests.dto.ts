import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

export class VerifyPresentationOptionsDto {
  @ApiPropertyOptional({
    description: "The challenge the holder was given: every proof's `challenge` must equal it.",
    example: '7d9c2f0e-challenge',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  challenge?: string;

  @ApiPropertyOptional({
    description: "The domain the presentation is for: every proof's `domain` must name it.",
    example: 'verifier.example',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  domain?: string;
}

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
