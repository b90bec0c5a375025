import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { trustedIssuerLimits } from '../../trusted-issuers/trusted-issuer-limits.js';
import { credentialChecks, presentationChecks } from '../verifying/verification-policy.js';

/** Issuer ids are URLs (a DID): scheme, colon, no spaces. */
const absoluteUri = /^[a-zA-Z][a-zA-Z0-9+.-]*:\S+$/;

/** `options.trustedIssuers` of both verify routes: bounded in count and length. */
function TrustedIssuers(): PropertyDecorator {
  const { entries: trustedIssuers, issuerChars: urlChars } = trustedIssuerLimits;
  return (target, key) => {
    ApiPropertyOptional({
      type: [String],
      maxItems: trustedIssuers,
      description: `The only issuers whose credentials pass the \`issuer\` check (ids, usually DIDs; at most ${trustedIssuers}, each up to ${urlChars} characters). Given, it replaces the tenant's trusted issuers list; absent, that list applies when the tenant keeps one, else any issuer whose key resolves.`,
      example: ['did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2'],
    })(target, key);
    IsOptional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(trustedIssuers)(target, key);
    IsString({ each: true })(target, key);
    MaxLength(urlChars, { each: true })(target, key);
    Matches(absoluteUri, { each: true, message: 'each value in trustedIssuers must be a URL' })(
      target,
      key,
    );
  };
}

function Checks(known: readonly string[], always: string): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({
      type: 'array',
      items: { type: 'string', enum: [...known] },
      maxItems: known.length,
      description: `The checks to run and report (VC API \`checks\`); absent: all. ${always} run whatever it says.`,
      example: ['proof'],
    })(target, key);
    IsOptional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(known.length)(target, key);
    IsIn(known, { each: true, message: `each value in checks must be one of ${known.join(', ')}` })(
      target,
      key,
    );
  };
}

export class VerifyOptionsDto {
  @Checks(credentialChecks, '`proof` and `issuer`')
  checks?: string[];

  @TrustedIssuers()
  trustedIssuers?: string[];
}

export class VerifyPresentationOptionsDto {
  @Checks(
    presentationChecks,
    '`proof`, `holder`, `credential` (with `issuer`), `challenge` and `domain`',
  )
  checks?: string[];

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

  @TrustedIssuers()
  trustedIssuers?: string[];
}
