/**
 * The path of a request target, without query, fragment or authority: what logs and problem `instance`
 * fields show. HTTP/1.1 also allows the absolute form (`GET http://user:password@host/path`), which
 * Express routes by its path; its scheme, credentials and host are never repeated.
 */
export function targetPath(target: string | undefined): string {
  const raw = target ?? '';
  if (raw.startsWith('/')) return raw.split(/[?#]/, 1)[0] ?? '/';
  try {
    return new URL(raw).pathname;
  } catch {
    return '/';
  }
}

/**
 * Path segments that are bearer secrets (an OpenID4VCI offer's reference, OpenID4VCI 1.0 §4.1.3; an
 * OpenID4VP request's reference in its `request_uri` and `response_uri`), replaced by their route
 * parameter wherever a path is logged or traced.
 */
const secretSegments: readonly [RegExp, string][] = [
  [/^(\/ctrl\/oid4vci\/[^/]+\/credential-offers\/)[^/]+/, '$1:reference'],
  [/^(\/ctrl\/oid4vp\/[^/]+\/requests\/)[^/]+/, '$1:reference'],
];

/** The path as logs and spans may show it: secret segments replaced. */
export function loggablePath(path: string): string {
  return secretSegments.reduce((shown, [pattern, by]) => shown.replace(pattern, by), path);
}
