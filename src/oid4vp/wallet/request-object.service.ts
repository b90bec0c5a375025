import { Injectable } from '@nestjs/common';
import { Settings } from '../../config/settings.js';
import { DidService } from '../../did/did.service.js';
import { invalidRequest, OAuthError } from '../../common/oauth-error.js';
import { responseUriOf } from '../verifier-urls.js';
import { requestObjectClaims, signRequestObject } from './request-object.js';
import { WalletRequests } from '../requests/wallet-requests.js';

/** A `wallet_nonce` is the wallet's own random value (OpenID4VP 1.0 §5.10): short, printable. */
const walletNoncePattern = /^[\x21-\x7e]{1,256}$/;
/** `wallet_metadata` (OpenID4VP 1.0 §10): a JSON object, read only to refuse garbage. */
const maxWalletMetadataChars = 12 * 1024;

/** The one answer of an unknown, answered or expired request: nothing about which (RFC 9101 §7). */
export const requestNotFound = () =>
  new OAuthError(
    404,
    'invalid_request_uri',
    'There is no open request at this request_uri: unknown, answered or past its time.',
  );

/**
 * The request object a wallet fetches at `request_uri` (RFC 9101 §5.2, OpenID4VP 1.0 §5.10): signed
 * with the tenant's DID key, so that the wallet verifies it through the DID the client_id names.
 */
@Injectable()
export class RequestObjectService {
  constructor(
    private readonly settings: Settings,
    private readonly requests: WalletRequests,
    private readonly dids: DidService,
  ) {}

  /** The signed request object; `form` is the POST's parameters (GET: none). */
  async requestObject(
    tenantId: string,
    reference: string,
    form: Record<string, string> = {},
  ): Promise<string> {
    const walletNonce = walletNonceOf(form);
    const open = await this.requests.findOpen(tenantId, reference);
    if (open === undefined) throw requestNotFound();
    const { request, secrets } = open;
    const signer = await this.dids.signerFor(tenantId);
    const claims = requestObjectClaims({
      clientId: request.clientId,
      responseMode: request.responseMode,
      responseUri: responseUriOf(this.settings.PUBLIC_BASE_URL, tenantId, reference),
      nonce: request.nonce,
      state: request.state,
      dcqlQuery: request.dcqlQuery,
      responseKey: secrets.responseKey,
      walletNonce,
      now: this.requests.now(),
      expiresAt: request.expiresAt,
    });
    return signRequestObject(claims, {
      verificationMethod: signer.verificationMethod,
      algorithm: signer.signer.algorithm,
      sign: (input) => signer.signer.sign(input),
    });
  }
}

/** The POST's `wallet_nonce`, checked; `wallet_metadata` must be a JSON object when given. */
function walletNonceOf(form: Record<string, string>): string | undefined {
  const metadata = form.wallet_metadata;
  if (metadata !== undefined) {
    let parsed: unknown;
    try {
      parsed = metadata.length <= maxWalletMetadataChars ? JSON.parse(metadata) : undefined;
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw invalidRequest(
        `wallet_metadata must be a JSON object of at most ${maxWalletMetadataChars} characters.`,
      );
  }
  const nonce = form.wallet_nonce;
  if (nonce !== undefined && !walletNoncePattern.test(nonce))
    throw invalidRequest('wallet_nonce must be 1 to 256 printable ASCII characters.');
  return nonce;
}
