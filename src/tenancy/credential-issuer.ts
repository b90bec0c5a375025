/** A tenant's OpenID4VCI credential issuer identifier: `{PUBLIC_BASE_URL}/ctrl/oid4vci/{tenantId}` (docs/oid4vci.md). */
export function credentialIssuerId(publicBaseUrl: string, tenantId: string): string {
  return `${publicBaseUrl}/ctrl/oid4vci/${tenantId}`;
}
