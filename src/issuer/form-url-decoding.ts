import { unescape } from 'node:querystring';

/**
 * Decodes application/x-www-form-urlencoded text as Java's URLDecoder does, which Keycloak applies to
 * Basic client credentials and redirect URIs: `+` is a space, bytes that are not UTF-8 become U+FFFD,
 * and a `%` without two hexadecimal digits after it makes the text undecodable (undefined).
 */
export function decodeFormComponent(text: string): string | undefined {
  if (/%(?![0-9A-Fa-f]{2})/.test(text)) return undefined;
  return unescape(text.replace(/\+/g, ' '));
}
