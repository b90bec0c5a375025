import { ApiProperty } from '@nestjs/swagger';
import { IsObject, IsString, MaxLength } from 'class-validator';
import { requestLimits } from '../../requests/request-limits.js';

/** What a dc_api.jwt answer's `data` looks like: the JWE to the request's key (appendix A.4). */
export const encryptedDataExample = {
  response:
    'eyJhbGciOiJFQ0RILUVTIiwiZW5jIjoiQTI1NkdDTSIsImtpZCI6IlpwM25PcTVMOGMyazFtVmQ0UjdzVHciLCJlcGsiOnsia3R5IjoiRUMiLCJjcnYiOiJQLTI1NiIsIngiOiIuLi4iLCJ5IjoiLi4uIn19..uAYcHRUSSn2X0WPX.yVzlGSYG4qbg0bq18JcUiDRw56yVnbKR8E7S7YlEtzT00RqE3Pw5oTpUG3hdLN4taHZ9gC1kwak8JOnJgQ.1wR024_3-qtAlx1oFIUpQQ',
};

/**
 * A dc_api answer's `data`, the vp_token in the clear (OpenID4VP 1.0 §8.1): here a membership SD-JWT VC
 * of a did:key issuer disclosing `given_name`, asked without holder binding, so that the example holds
 * without a wallet (a bound one ends with the KB-JWT after the last `~`).
 */
export const clearDataExample = {
  vp_token: {
    membership: [
      'eyJhbGciOiJFZERTQSIsInR5cCI6ImRjK3NkLWp3dCIsImtpZCI6ImRpZDprZXk6ejZNa2lnQm0yZGlyNTk2M1h6Z0tlSjdoREYxZlR2RkFhREtSYTQ0aUQ2RDdTSFFoI3o2TWtpZ0JtMmRpcjU5NjNYemdLZUo3aERGMWZUdkZBYURLUmE0NGlENkQ3U0hRaCJ9.eyJpc3MiOiJkaWQ6a2V5Ono2TWtpZ0JtMmRpcjU5NjNYemdLZUo3aERGMWZUdkZBYURLUmE0NGlENkQ3U0hRaCIsInZjdCI6Imh0dHBzOi8vc2hvcC5leGFtcGxlL2NyZWRlbnRpYWxzL21lbWJlcnNoaXAiLCJpYXQiOjE3OTUwMDAwMDAsIl9zZCI6WyIydEVJbktzQzI4cFBNc2xhcmctZFVzTDhzVkVKSDF2cXJ3TmxDTmVBUXhVIl0sIl9zZF9hbGciOiJzaGEtMjU2In0.D8qazvnnBCTCjmiPhWq-FRSnJTu5FgsNzZb_6t6CjQgv5DBvK7j2Uose-JYyxTSCDNaC9L1b1VJ_Jpl3GNZ4Cw~WyI4ZjNSdEo5UDZOLURJV0FjNndwcE9BIiwiZ2l2ZW5fbmFtZSIsIkFsaWNlIl0~',
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
