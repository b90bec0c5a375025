import { Injectable } from '@nestjs/common';
import { prefixOf } from './client-ids.js';
import { clientIdPrefixUnavailable } from './requests/presentation-request.errors.js';
import { type ResponseMode } from './requests/wallet-requests.js';
import { VerifierIdentity } from './verifier-identity.service.js';
import {
  clientMetadataOf,
  selfIssuedAudience,
  signX509RequestObject,
} from './wallet/request-object.js';

/** The DC API exchange protocols a tenant's verifier speaks (OpenID4VP 1.0 appendix A.1). */
export const dcApiProtocols = ['openid4vp-v1-signed', 'openid4vp-v1-unsigned'] as const;
export type DcApiProtocol = (typeof dcApiProtocols)[number];

/** What a relying party's page passes to `navigator.credentials.get({digital: {requests: [it]}})`. */
export interface DcApiRequest {
  protocol: DcApiProtocol;
  data: Record<string, unknown>;
}

/** What a DC API request says, from the request's row and its secrets. */
export interface DcApiRequestInput {
  tenantId: string;
  clientId: string;
  responseMode: ResponseMode;
  nonce: string;
  dcqlQuery: Record<string, unknown>;
  expectedOrigins: readonly string[];
  /** dc_api.jwt: the private P-256 JWK (with its kid) whose public part the wallet encrypts to. */
  responseKey?: Record<string, unknown>;
  now: Date;
  expiresAt: Date;
}

/** Whether a request of this client id is signed: an x509 client id can sign (HAIP 1.0 §5). */
export function isSignedDcApiRequest(clientId: string): boolean {
  const prefix = prefixOf(clientId);
  return prefix === 'x509_hash' || prefix === 'x509_san_dns';
}

/**
 * The DC API request of a tenant's presentation request (OpenID4VP 1.0 appendix A): signed with the
 * x509 client id's key (`client_id` and `expected_origins` in the JWS, A.3.2), else unsigned, without
 * `client_id` (A.2): the wallet then knows the verifier by the origin the browser reports. Neither
 * carries `state` or a `response_uri`: the answer comes back through the browser.
 */
@Injectable()
export class DcApiRequests {
  constructor(private readonly identity: VerifierIdentity) {}

  /** The request; a 409 when the certificate no longer stands for its x509 client id. */
  async requestOf(input: DcApiRequestInput): Promise<DcApiRequest> {
    const parameters = {
      response_type: 'vp_token',
      response_mode: input.responseMode,
      nonce: input.nonce,
      dcql_query: input.dcqlQuery,
      client_metadata: clientMetadataOf(input.responseMode, input.responseKey),
    };
    if (!isSignedDcApiRequest(input.clientId))
      return { protocol: 'openid4vp-v1-unsigned', data: parameters };
    const signing = await this.identity.x509SigningFor(input.tenantId, input.clientId);
    if (signing === undefined)
      throw clientIdPrefixUnavailable(
        prefixOf(input.clientId)!,
        'its certificate changed since the request was made.',
      );
    const claims = {
      aud: selfIssuedAudience,
      iat: Math.floor(input.now.getTime() / 1000),
      exp: Math.floor(input.expiresAt.getTime() / 1000),
      client_id: input.clientId,
      expected_origins: [...input.expectedOrigins],
      ...parameters,
    };
    const request = await signX509RequestObject(claims, signing.x5c, signing.key);
    return { protocol: 'openid4vp-v1-signed', data: { request } };
  }
}
