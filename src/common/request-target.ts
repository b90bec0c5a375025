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
