import { ApiProperty } from '@nestjs/swagger';
import { IsObject, IsString, MaxLength } from 'class-validator';
import { requestLimits } from '../../requests/request-limits.js';

/** What a dc_api.jwt answer's `data` looks like: the JWE to the request's key (appendix A.4). */
export const encryptedDataExample = {
  response:
    'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImtpZCI6IlpwM25PcTVMOGMyazFtVmQ0UjdzVHciLCJlcGsiOnsia3R5IjoiRUMiLCJjcnYiOiJQLTI1NiIsIngiOiIuLi4iLCJ5IjoiLi4uIn19..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ',
};

/** What a dc_api answer's `data` looks like: the vp_token in the clear (OpenID4VP 1.0 §8.1). */
export const clearDataExample = {
  vp_token: {
    alumni: [
      'eyJhbGciOiJFUzI1NiIsInR5cCI6ImRjK3NkLWp3dCJ9.eyJpc3MiOiIuLi4ifQ.c2ln~WyJzYWx0IiwiZ2l2ZW5fbmFtZSIsIkFsaWNlIl0~eyJhbGciOiJFUzI1NiIsInR5cCI6ImtiK2p3dCJ9.eyJhdWQiOiJvcmlnaW46aHR0cHM6Ly9zaG9wLmV4YW1wbGUifQ.c2ln',
    ],
  },
};

/** What the relying party's page got from `navigator.credentials.get`, and where it ran. */
export class DcApiResponseDto {
  @ApiProperty({
    maxLength: requestLimits.originChars,
    description:
      'The origin of the page that called `navigator.credentials.get` (`location.origin`): one of the request’s `expectedOrigins`. The answer’s key binding must name it as `aud: origin:<origin>` (OpenID4VP 1.0 appendix A.4).',
    example: 'https://shop.example',
  })
  @MaxLength(requestLimits.originChars, {
    message: `must be at most ${requestLimits.originChars} characters`,
  })
  @IsString({ message: 'must be a string' })
  origin!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The `data` of the DigitalCredential the browser returned, as it is: `{vp_token}` for dc_api, `{response}` (a JWE to the request’s key) for dc_api.jwt, or `{error}` when the wallet declined.',
    example: encryptedDataExample,
  })
  @IsObject({ message: 'must be a JSON object' })
  data!: Record<string, unknown>;
}
