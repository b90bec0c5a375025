import { decodeFormComponent } from './form-url-decoding.js';

/** What Java's URI parser accepts: URI characters, `%` only before two hex digits, non-ASCII letters. */
const uriText = /^(?:[\w\-.~:/?#[\]@!$&'()*+,;=]|%[\dA-Fa-f]{2}|[^\p{ASCII}\s\p{Cc}])*$/u;

/** Keycloak gives up on a URI still changing after this many rounds of percent-decoding. */
const maxDecodingRounds = 5;

/**
 * Where the browser may be sent for a requested redirect URI, or undefined when it is not allowed, as
 * Keycloak 26's RedirectUtils.verifyRedirectUri decides: the URI is percent-decoded (the query and
 * fragment excepted) until it no longer changes, normalised (`.` and `..` segments resolved, host in
 * lower case) and matched against the registered URIs, where a trailing `*` matches anything below; an
 * exact match of the URI as sent counts too. The answer is the normalised URI as sent.
 */
export function verifyRedirectUri(
  requested: string,
  registered: readonly string[],
): string | undefined {
  if (registered.length === 0 || !uriText.test(requested)) return undefined;
  const decoded = decodeRepeatedly(requested);
  if (decoded === undefined || !uriText.test(decoded)) return undefined;
  // Longest first, as Keycloak orders them, so that the scheme check below sees the closest match.
  const patterns = [...registered].sort((left, right) => right.length - left.length);
  const target = normalize(requested);
  const matched = match(patterns, normalize(decoded), true) ?? match(patterns, target, false);
  // Deny by default, stricter than Keycloak: where the browser really goes must match as well.
  if (matched === undefined || match(patterns, target, true) === undefined) return undefined;
  const scheme = /^([A-Za-z][\w+.-]*):/.exec(decoded)?.[1]?.toLowerCase();
  if (
    scheme !== undefined &&
    scheme !== 'http' &&
    scheme !== 'https' &&
    !matched.toLowerCase().startsWith(`${scheme}:`)
  ) {
    return undefined;
  }
  return target;
}

function decodeRepeatedly(uri: string): string | undefined {
  const end = uri.search(/[?#]/);
  const queryAndFragment = end < 0 ? '' : uri.slice(end);
  let path = end < 0 ? uri : uri.slice(0, end);
  for (let round = 0; round < maxDecodingRounds; round++) {
    const decoded = decodeFormComponent(path);
    if (decoded === undefined) return undefined;
    if (decoded === path) return path + queryAndFragment;
    path = decoded;
  }
  return undefined;
}

/** Java's URI.normalize for an absolute path, then the host in lower case (RedirectUtils). */
function normalize(uri: string): string {
  const [, scheme = '', authority = '', path = '', rest = ''] =
    /^([A-Za-z][\w+.-]*:)?(\/\/[^/?#]*)?([^?#]*)(.*)$/s.exec(uri) ?? [];
  const normalized = `${scheme}${authority}${path.startsWith('/') ? removeDotSegments(path) : path}${rest}`;
  const hostEnd = normalized.indexOf('/', 7);
  return hostEnd < 0
    ? normalized.toLowerCase()
    : normalized.slice(0, hostEnd).toLowerCase() + normalized.slice(hostEnd);
}

/** RFC 3986 §5.2.4 for a path that starts with `/`. */
function removeDotSegments(path: string): string {
  const segments = path.split('/');
  const output: string[] = [];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && output.length > 1) output.pop();
      if (last) output.push('');
    } else {
      output.push(segment);
    }
  }
  return output.join('/');
}

/** The registered URI that `uri` matches (without its `*`), as RedirectUtils.matchesRedirects. */
function match(patterns: readonly string[], uri: string, wildcards: boolean): string | undefined {
  for (const pattern of patterns) {
    if (wildcards && pattern.endsWith('*') && !pattern.includes('?')) {
      const withoutQuery = uri.split('?', 1)[0] ?? uri;
      const prefix = pattern.slice(0, -1);
      if (withoutQuery.startsWith(prefix)) return prefix;
      const trimmed = prefix.length > 1 && prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
      if (withoutQuery === trimmed) return trimmed;
    } else if (pattern === uri) {
      return pattern;
    }
  }
  return undefined;
}
