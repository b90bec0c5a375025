import { createHash } from 'node:crypto';

/** The client identifier prefixes a tenant's verifier offers (OpenID4VP 1.0 §5.9.3, HAIP 1.0 §5). */
export const clientIdPrefixes = ['x509_hash', 'x509_san_dns', 'decentralized_identifier'] as const;

export type ClientIdPrefix = (typeof clientIdPrefixes)[number];

/** The most a stored client id holds (`oid4vp_request.client_id`). */
export const maxClientIdChars = 256;

/** `x509_hash:` and the base64url SHA-256 of the leaf certificate's DER (OpenID4VP 1.0 §5.9.3). */
export function x509HashClientId(leafDer: Buffer): string {
  return `x509_hash:${createHash('sha256').update(leafDer).digest('base64url')}`;
}

/**
 * `x509_san_dns:<host>` when the leaf names the response_uri's host as a dNSName, else undefined:
 * OpenID4VP 1.0 §5.9.3 asks the wallet to refuse a response_uri whose host is not the client id.
 */
export function x509SanDnsClientId(
  dnsNames: readonly string[],
  responseUriHost: string,
): string | undefined {
  // URL hosts are lower case; wallets compare the name exactly (OWF's library does).
  return dnsNames.includes(responseUriHost) ? `x509_san_dns:${responseUriHost}` : undefined;
}

/** The prefix of a client id this service made. */
export function prefixOf(clientId: string): ClientIdPrefix | undefined {
  const prefix = clientId.slice(0, clientId.indexOf(':'));
  return (clientIdPrefixes as readonly string[]).includes(prefix)
    ? (prefix as ClientIdPrefix)
    : undefined;
}

/** Whether the leaf still stands for an x509 client id made earlier (the certificate may be renewed). */
export function leafFitsClientId(
  clientId: string,
  leafDer: Buffer,
  dnsNames: readonly string[],
): boolean {
  switch (prefixOf(clientId)) {
    case 'x509_hash':
      return x509HashClientId(leafDer) === clientId;
    case 'x509_san_dns':
      return dnsNames.includes(clientId.slice('x509_san_dns:'.length));
    case 'decentralized_identifier':
    case undefined:
      return false;
  }
}
