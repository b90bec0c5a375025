import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { refuse, type Refusal } from './setting-decorators.js';

/** The parsers of the settings whose text needs more than a pattern (settings.ts). */

const proxyNames = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Express's `trust proxy` list. Addresses only, never a hop count: a count trusts
 * whichever peer connects, so a client reaching the app directly could name any address it likes.
 */
export function trustedProxies(text: string): readonly string[] | Refusal {
  if (!/^[0-9A-Za-z.:/, ]{1,1000}$/.test(text)) {
    return refuse(
      '$property must be none, or comma-separated addresses, CIDR ranges or loopback, linklocal, uniquelocal',
    );
  }
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 1 && entries[0] === 'none') return [];
  const invalid = entries.find(
    (entry) =>
      !proxyNames.has(entry) &&
      !(entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry) && isIP(entry) !== 0),
  );
  if (invalid === undefined) return entries;
  return refuse(
    `'${invalid}' is not an address, a CIDR range or one of loopback, linklocal, uniquelocal (or set none)`,
  );
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return isIP(entry.split('/')[0]) !== 0;
  } catch {
    return false;
  }
}

/**
 * Node's bundled roots and every certificate in the PEM file at `path`: a file that cannot be read or
 * holds no certificate stops the start rather than leaving outbound https trusting less than meant.
 */
export function outboundCa(path: string): readonly string[] | Refusal {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    return refuse(`cannot be read: ${(error as Error).message}`);
  }
  const certificates =
    pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) return refuse(`${path} holds no PEM certificate`);
  for (const certificate of certificates) {
    try {
      new X509Certificate(certificate);
    } catch (error) {
      return refuse(`${path} holds a certificate that does not parse: ${(error as Error).message}`);
    }
  }
  return [...rootCertificates, ...certificates];
}

const day = 86_400_000;

/** WEBHOOK_RETRY_DELAYS_MS: up to 20 waits in milliseconds, each at most a day. */
export function retryDelays(text: string): readonly number[] | Refusal {
  if (!/^\d{1,8}(,\d{1,8}){0,19}$/.test(text)) {
    return refuse('$property must be up to 20 comma-separated whole numbers of milliseconds');
  }
  const delays = text.split(',').map(Number);
  if (delays.some((delay) => delay > day)) {
    return refuse(`each wait must be at most a day (${day})`);
  }
  return delays;
}
