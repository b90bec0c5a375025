import {
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
  type OutboundResponse,
} from '../../common/outbound.js';
import { checkedDidDocument, type DidDocumentJson } from './did-document.js';

/** What reading a did:web document may take and hold. */
export const didWebLimits = {
  /** The most of a DID document read: a document of a handful of keys is a few kB. */
  bytes: 64 * 1024,
  /** One fetch's whole answer. */
  timeoutMs: 5_000,
  /** Documents remembered, read or failed, and the most their JSON may add up to. */
  remembered: 1_000,
  rememberedBytes: 16 * 1024 * 1024,
  /** A document is remembered for its Cache-Control max-age, at most this long. */
  maxTtlMs: 300_000,
  /**
   * At least this long, whatever its Cache-Control says, and a failure as long: one verification
   * reads a DID for its issuer check and for each proof, and reads it once.
   */
  minTtlMs: 10_000,
} as const;

const segment = /^(?:[A-Za-z0-9._~!$&'()*+,;=@-]|%[0-9A-Fa-f]{2})+$/;

/**
 * The https URL of a did:web's document (did:web method specification, "Read"): the first part is
 * the host, with a port as `%3A`; further parts are a path (`did:web:example.com:users:alice` is
 * `https://example.com/users/alice/did.json`); without one, `/.well-known/did.json`. Otherwise why
 * the DID is no did:web.
 */
export function didWebUrl(did: string): string {
  const parts = /^did:web:(.+)$/.exec(did)?.[1]?.split(':');
  const [host = '', ...path] = parts ?? [];
  const hostMatch = /^([A-Za-z0-9.-]+)(?:%3[Aa](\d{1,5}))?$/.exec(host);
  if (hostMatch === null || hostMatch[1].startsWith('.') || hostMatch[1].endsWith('.')) {
    throw new Error(`'${did.slice(0, 100)}' has no domain name (a port is written %3A)`);
  }
  if (!path.every((part) => segment.test(part) && part !== '.' && part !== '..')) {
    throw new Error(`'${did.slice(0, 100)}' has an empty or unusable path segment`);
  }
  const port = hostMatch[2] === undefined ? '' : `:${hostMatch[2]}`;
  const location = path.length === 0 ? '.well-known' : path.join('/');
  return `https://${hostMatch[1].toLowerCase()}${port}/${location}/did.json`;
}

export interface DidWebRead {
  document: DidDocumentJson | string;
  ttlMs: number;
}

/**
 * The did:web's document, fetched through the outbound guard (https only; never a redirect, whose
 * target the DID does not name), or why it cannot be used.
 */
export async function readDidWeb(did: string, policy: OutboundPolicy): Promise<DidWebRead> {
  const failed = (problem: string) => ({ document: problem, ttlMs: didWebLimits.minTtlMs });
  let url: string;
  try {
    url = didWebUrl(did);
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  let response: OutboundResponse;
  try {
    response = await guardedRequest(url, policy, {
      timeoutMs: didWebLimits.timeoutMs,
      maxBytes: didWebLimits.bytes,
      headers: {
        accept: 'application/did+json, application/did+ld+json;q=0.9, application/json;q=0.8',
      },
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    return failed(`${url} could not be fetched: ${error.message}`);
  }
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.location ?? 'nowhere';
    return failed(
      `${url} answered HTTP ${response.status} (a redirect to ${location}), which is not followed: a did:web document is read only at the URL its DID names`,
    );
  }
  if (response.status !== 200) return failed(`${url} answered HTTP ${response.status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    return failed(`${url} is not JSON`);
  }
  const document = checkedDidDocument(parsed, did);
  if (typeof document === 'string') return failed(`${url}: ${document}`);
  return { document, ttlMs: ttlOf(response.headers['cache-control']) };
}

function ttlOf(cacheControl: string | undefined): number {
  const maxAge = /max-age=(\d+)/i.exec(cacheControl ?? '');
  const seconds =
    maxAge === null || /no-(store|cache)/i.test(cacheControl ?? '') ? 0 : Number(maxAge[1]);
  return Math.min(Math.max(seconds * 1000, didWebLimits.minTtlMs), didWebLimits.maxTtlMs);
}
