/** Keycloak's browserSecurityHeaders: the realm setting and the header it sends on its pages. */
const headerNames: Record<string, string> = {
  xFrameOptions: 'X-Frame-Options',
  contentSecurityPolicy: 'Content-Security-Policy',
  contentSecurityPolicyReportOnly: 'Content-Security-Policy-Report-Only',
  xContentTypeOptions: 'X-Content-Type-Options',
  xRobotsTag: 'X-Robots-Tag',
  strictTransportSecurity: 'Strict-Transport-Security',
  referrerPolicy: 'Referrer-Policy',
};

/** What Keycloak gives a realm imported without browserSecurityHeaders. */
const keycloakDefaults: Record<string, string> = {
  xFrameOptions: 'SAMEORIGIN',
  contentSecurityPolicy: "frame-src 'self'; frame-ancestors 'self'; object-src 'none';",
  contentSecurityPolicyReportOnly: '',
  xContentTypeOptions: 'nosniff',
  xRobotsTag: 'none',
  strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  referrerPolicy: 'no-referrer',
};

/** The embedded pages' own limits on top of the realm's policy: their only style is inline. */
const pagePolicy = "default-src 'self'; style-src 'unsafe-inline'";

/**
 * The headers of every issuer page: the realm's browserSecurityHeaders as Keycloak sends them on its
 * login pages (a realm that sets them replaces Keycloak's defaults entirely), and no caching.
 */
export function pageHeaders(
  configured: Record<string, string> | undefined,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [setting, value] of Object.entries(configured ?? keycloakDefaults)) {
    const name = headerNames[setting];
    if (name !== undefined && value !== '') headers[name] = value;
  }
  const realmPolicy = headers['Content-Security-Policy'];
  headers['Content-Security-Policy'] =
    realmPolicy === undefined ? pagePolicy : `${realmPolicy} ${pagePolicy}`;
  headers['Cache-Control'] = 'no-store, must-revalidate, max-age=0';
  return headers;
}
