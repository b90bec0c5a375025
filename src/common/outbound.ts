import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Which targets an outgoing request may reach. */
export interface OutboundPolicy {
  /**
   * Beyond public addresses over https, each with plain http too: `loopback` (127.0.0.0/8, ::1), what
   * local mode needs for receivers on the developer's machine, or `true`, loopback and every private
   * range (RFC 1918, unique-local, carrier-grade NAT). Development and tests only.
   */
  readonly allowPrivate: boolean | 'loopback';
  /** The certificate authorities https trusts (PEM), in place of Node's default; undefined: the default. */
  readonly ca?: readonly string[];
  /**
   * This process's own ports may be requested: only for a target the operator configured (the bundled
   * realm's back channel, which in local mode is this process), never for one a tenant or a document names.
   */
  readonly ownPortsAllowed?: boolean;
}

export interface OutboundRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  /** Connecting (name lookup, TCP and TLS) must be done within this; the whole request within `timeoutMs`. */
  readonly connectTimeoutMs?: number;
  /** The most of the answer read: beyond it the request fails, or with `truncate` stops reading. */
  readonly maxBytes: number;
  readonly truncate?: boolean;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

/**
 * Why an outgoing request failed: refused by the policy (or the URL), no connection (lookup, TCP, TLS,
 * reset), no complete answer in time, or an answer over the size cap.
 */
export type OutboundFailure = 'refused' | 'connection' | 'timeout' | 'too-large';

/** An outgoing request this service will not make or could not complete; the message says why. */
export class OutboundError extends Error {
  override name = 'OutboundError';

  constructor(
    message: string,
    readonly failure: OutboundFailure = 'refused',
  ) {
    super(message);
  }
}

/** Ranges a target may be in beyond public unicast, by what the policy allows. */
const allowedRanges = new Map<OutboundPolicy['allowPrivate'], ReadonlySet<string>>([
  [false, new Set()],
  ['loopback', new Set(['loopback'])],
  [true, new Set(['private', 'loopback', 'uniqueLocal', 'carrierGradeNat'])],
]);

/** Ports this process listens on (its HTTP server, metrics, its embedded PostgreSQL). */
const ownPorts = new Set<number>();

/**
 * Refuses `port` as a target while this process listens on it, under any policy that lets requests
 * reach this machine: a webhook or status list there would be the service asking itself or its
 * database. Returns the release, for when the port closes.
 */
export function refuseOwnPort(port: number): () => void {
  ownPorts.add(port);
  return () => ownPorts.delete(port);
}

/** Cloud metadata services outside the link-local range (Alibaba, AWS over IPv6). */
const metadataAddresses = new Set(['100.100.100.200', 'fd00:ec2::254']);

/** IPv6 global unicast (RFC 4291 section 2.4); everything outside it is refused. */
const globalUnicast = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052 section 2.1): the last 32 bits are the IPv4 address reached. */
const nat64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Why `address` may not be connected to, or undefined when it may. Globally reachable unicast only;
 * with `allowPrivate` also loopback, or loopback and private ranges, never link-local or a metadata
 * service.
 */
export function addressProblem(address: string, policy: OutboundPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `'${address}' is not an IP address`;
  // IPv4-mapped (::ffff:0:0/96) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv6' && parsed.match(nat64)) {
    const [high, low] = (parsed as ipaddr.IPv6).parts.slice(-2);
    const embedded = new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
    const range = rangeOf(embedded);
    // Through a NAT64 gateway only the public internet: its loopback or private ranges are not ours.
    return range === 'unicast'
      ? undefined
      : `${address} reaches ${embedded.toString()} through NAT64, which is in a ${range} range, which is not reachable from here`;
  }
  const range = rangeOf(parsed);
  if (range === 'unicast') return undefined;
  if (metadataAddresses.has(parsed.toNormalizedString()) || metadataAddresses.has(address)) {
    return `${address} is a cloud metadata address`;
  }
  if (allowedRanges.get(policy.allowPrivate)?.has(range) === true) return undefined;
  return `${address} is in a ${range} range, which is not reachable from here`;
}

/**
 * ipaddr.js's range name, where `unicast` is left only to globally reachable addresses: its IPv6
 * `unicast` is anything it has no name for, so IPv4-compatible (::/96, deprecated by RFC 4291
 * section 2.5.5.1) and whatever lies outside 2000::/3 get a name of their own. 6to4 and Teredo keep
 * theirs and are refused: they reach an embedded IPv4 address through a relay this service does not
 * choose.
 */
function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = address.range();
  if (address.kind() === 'ipv4' || range !== 'unicast') return range;
  if ((address as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) {
    return 'IPv4-compatible';
  }
  return address.match(globalUnicast) ? 'unicast' : 'reserved (outside 2000::/3)';
}

/** Why `url` may not be requested at all (scheme, credentials, an address literal), or undefined. */
export function urlProblem(url: string, policy: OutboundPolicy): string | undefined {
  if (!URL.canParse(url)) return `'${url}' is not a URL`;
  const parsed = new URL(url);
  if (
    parsed.protocol !== 'https:' &&
    !(policy.allowPrivate !== false && parsed.protocol === 'http:')
  ) {
    return `only https URLs are fetched, not ${parsed.protocol}`;
  }
  if (parsed.username !== '' || parsed.password !== '') return 'a URL with credentials is refused';
  // Whatever the host: a name can resolve to loopback, and the lookup does not see the port.
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  if (policy.allowPrivate !== false && policy.ownPortsAllowed !== true && ownPorts.has(port)) {
    return `port ${port} is this service's own (its HTTP, metrics or database port), which it never requests`;
  }
  const host = hostOf(parsed);
  return isIP(host) === 0 ? undefined : addressProblem(host, policy);
}

/** Why `url` may not be requested, its name resolved now: what a stored target is checked with. */
export async function targetProblem(
  url: string,
  policy: OutboundPolicy,
): Promise<string | undefined> {
  const problem = urlProblem(url, policy);
  if (problem !== undefined) return problem;
  const host = hostOf(new URL(url));
  if (isIP(host) !== 0) return undefined;
  return new Promise((resolve) => {
    checkedLookup(policy)(host, { all: true }, (error) =>
      resolve(error === null ? undefined : (error as Error).message),
    );
  });
}

/**
 * A request to `url` within the limits: no redirect followed, the answer capped, and the connection
 * made to an address that was checked against the policy (resolved once, so DNS cannot swap it after).
 */
export async function guardedRequest(
  url: string,
  policy: OutboundPolicy,
  limits: OutboundRequest,
): Promise<OutboundResponse> {
  const problem = urlProblem(url, policy);
  if (problem !== undefined) throw new OutboundError(problem);
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const signal = AbortSignal.timeout(limits.timeoutMs);
  return new Promise<OutboundResponse>((resolve, reject) => {
    let connectTimer: NodeJS.Timeout | undefined;
    const fail = (error: unknown): void => {
      clearTimeout(connectTimer);
      reject(
        error instanceof OutboundError
          ? error
          : signal.aborted
            ? new OutboundError(`no complete answer within ${limits.timeoutMs} ms`, 'timeout')
            : new OutboundError(
                `the request failed: ${error instanceof Error ? error.message : String(error)}`,
                'connection',
              ),
      );
    };
    const outgoing = request(
      target,
      {
        method: limits.method ?? 'GET',
        headers: limits.headers,
        lookup: checkedLookup(policy),
        signal,
        ...(policy.ca === undefined ? {} : { ca: [...policy.ca] }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = () => ({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).subarray(0, limits.maxBytes),
        });
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          chunks.push(chunk);
          if (size <= limits.maxBytes) return;
          if (limits.truncate === true) {
            resolve(answer());
            response.destroy();
          } else {
            response.destroy(
              new OutboundError(`the answer is larger than ${limits.maxBytes} bytes`, 'too-large'),
            );
          }
        });
        response.on('error', fail);
        response.on('end', () => resolve(answer()));
      },
    );
    const connectTimeoutMs = limits.connectTimeoutMs;
    if (connectTimeoutMs !== undefined) {
      outgoing.on('socket', (socket) => {
        // A kept-alive socket is connected already; a new one has until then for lookup, TCP and TLS.
        if (!socket.connecting) return;
        connectTimer = setTimeout(() => {
          outgoing.destroy(
            new OutboundError(`no connection within ${connectTimeoutMs} ms`, 'timeout'),
          );
        }, connectTimeoutMs);
        socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () =>
          clearTimeout(connectTimer),
        );
      });
    }
    outgoing.on('close', () => clearTimeout(connectTimer));
    outgoing.on('error', fail);
    outgoing.end(limits.body);
  });
}

/** A DNS lookup that answers only when every address of the name passes the policy. */
function checkedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, '', 0);
      const refused = addresses
        .map(({ address }) => addressProblem(address, policy))
        .find((problem) => problem !== undefined);
      if (refused !== undefined) {
        return callback(new OutboundError(`${hostname} resolves to ${refused}`), '', 0);
      }
      if (options.all === true) return callback(null, addresses, 0);
      const [first] = addresses;
      if (first === undefined)
        return callback(new OutboundError(`${hostname} has no address`), '', 0);
      return callback(null, first.address, first.family);
    });
  };
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}
