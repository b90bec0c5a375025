import { Injectable } from '@nestjs/common';
import { Settings } from '../../config/settings.js';
import { DidService } from '../../did/did.service.js';
import { invalidRequest, OAuthError } from '../../common/oauth-error.js';
import { prefixOf } from '../client-ids.js';
import { responseUriOf } from '../verifier-urls.js';
import { VerifierIdentity } from '../verifier-identity.service.js';
import { requestObjectClaims, signRequestObject, signX509RequestObject } from './request-object.js';
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

/** The tenant's certificate changed since the request was made: its client id no longer verifies. */
const certificateChanged = () =>
  new OAuthError(
    404,
    'invalid_request_uri',
    "The verifier's certificate changed since this request was made: it must be made again.",
  );

/**
 * The request object a wallet fetches at `request_uri` (RFC 9101 §5.2, OpenID4VP 1.0 §5.10): signed
 * so that the wallet verifies it through what the client_id names (§5.9.3), the tenant's DID key for
 * `decentralized_identifier`, its ES256 key with the certificate chain in `x5c` for the x509 prefixes.
 */
@Injectable()
export class RequestObjectService {
  constructor(
    private readonly settings: Settings,
    private readonly requests: WalletRequests,
    private readonly dids: DidService,
    private readonly identity: VerifierIdentity,
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
    if (prefixOf(request.clientId) !== 'decentralized_identifier') {
      const signing = await this.identity.x509SigningFor(tenantId, request.clientId);
      if (signing === undefined) throw certificateChanged();
      return signX509RequestObject(claims, signing.x5c, signing.key);
    }
    const signer = await this.dids.signerFor(tenantId);
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
