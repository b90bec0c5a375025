import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '../../common/clock.js';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../../common/outbound.js';
import { Settings } from '../../config/settings.js';
import { StatusListsService } from '../status/status-lists.service.js';
import { remoteStatusListLimits } from '../verification-limits.js';
import { issuerMetadataLimits, CredentialIssuerKeys } from './credential-issuer-keys.js';
import { type JwsAlgorithm } from '../../jose/algorithms.js';
import { decodeJws, jwsVerifies } from '../../jose/jws.js';
import { algProblem } from './jws.js';
import { RememberedReads, type Read } from './remembered-reads.js';
import {
  decodeLst,
  maxInflatedStatusListBytes,
  statusAt,
  statusListBitSizes,
} from '../status/token-status-list.js';

type Json = Record<string, unknown>;

/** A Status List Token's list, once its signature, `sub` and dates checked out. */
interface TokenList {
  bits: number;
  bytes: Uint8Array;
}

/** A token verified once: its list, and what its next use checks again (`exp`, the issuer's key). */
interface VerifiedToken {
  list: TokenList;
  header: Json;
  key: string;
  /** Whose key signed it: the credential's issuer, or for an mdoc the token's own `iss`. */
  signer: string;
  ttl: unknown;
  exp: number | undefined;
}

/**
 * Token Status Lists (draft-ietf-oauth-status-list §5, §8): the JWT at a credential's
 * `status.status_list.uri`, fetched through the outbound guard, signed by the credential's issuer
 * (found as for the credential), its `sub` that URI. A verified list is remembered within its `ttl`
 * and `exp` in a bounded LRU; concurrent reads share one fetch; a token fetched again unchanged is
 * not verified and inflated again while its issuer's key is the same. Our own lists are read from
 * their rows at each verification, with the outcomes their tokens would give (docs/credentials.md).
 */
@Injectable()
export class RemoteTokenStatusLists {
  private readonly logger = new Logger(RemoteTokenStatusLists.name);
  private readonly policy: OutboundPolicy;
  private readonly reads = new RememberedReads<TokenList>({
    max: remoteStatusListLimits.remembered,
    maxSize: 16 * maxInflatedStatusListBytes,
    sizeOf: (list) => list.bytes.length,
    failureTtlMs: remoteStatusListLimits.failureTtlMs,
    // The token, then the issuer's key for it (its metadata and jwks_uri).
    deadlineMs: remoteStatusListLimits.deadlineMs + 2 * issuerMetadataLimits.timeoutMs,
  });
  /** Verified tokens by issuer, URI and the token's SHA-256: bounded like the lists remembered. */
  private readonly tokens = new LRUCache<string, VerifiedToken>({
    max: remoteStatusListLimits.remembered,
    maxSize: 16 * maxInflatedStatusListBytes,
    sizeCalculation: ({ list }) => Math.max(1, list.bytes.length),
  });

  constructor(
    settings: Settings,
    private readonly keys: CredentialIssuerKeys,
    private readonly statusLists: StatusListsService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.policy = {
      allowPrivate: settings.statusListAllowPrivateTargets,
      ca: settings.OUTBOUND_CA_FILE,
    };
  }

  /**
   * The status value of `reference` (`{idx, uri}`) by `issuer`, or why it cannot be read. An mdoc
   * names no JWT issuer (`issuer` undefined): its issuer-signed MSO vouches for the URI, and the token
   * there is verified with the key its own `iss` resolves to (docs/mdoc.md).
   */
  async statusOf(
    reference: unknown,
    issuer: string | undefined,
    deadline: AbortSignal,
  ): Promise<number | string> {
    const { idx, uri } = (
      typeof reference === 'object' && reference !== null ? reference : {}
    ) as Json;
    if (
      typeof uri !== 'string' ||
      uri.length > 2_048 ||
      !Number.isSafeInteger(idx) ||
      (idx as number) < 0
    ) {
      return "the credential's status.status_list has no uri and non-negative integer idx";
    }
    const ours = uri.endsWith('/token') ? this.statusLists.listOfUrl(uri.slice(0, -6)) : undefined;
    if (ours !== undefined) return this.ownStatus(ours, uri, issuer, idx as number, deadline);
    const list = await this.reads.read(
      `${issuer ?? '(mdoc)'} ${uri}`,
      // The shared read finds the issuer's key by its own deadline: this caller only stops waiting.
      (signal) => this.readList(uri, issuer, signal),
      deadline,
      `the status list ${uri} was not read in the time the request has`,
    );
    if (typeof list === 'string') return list;
    const status = statusAt(list.bytes, list.bits, idx as number);
    return typeof status === 'string' ? `the status list ${uri}: ${status}` : status;
  }

  /** One of our lists, read from its row: what its token would say, without signing or verifying it. */
  private async ownStatus(
    { tenantId, listId }: { tenantId: string; listId: string },
    uri: string,
    issuer: string | undefined,
    idx: number,
    deadline: AbortSignal,
  ): Promise<number | string> {
    if (deadline.aborted) return `the status list ${uri} was not read in the time the request has`;
    const read = await this.statusLists.tokenStatusOf(tenantId, listId, idx);
    // The token's own checks, in its order: a list of ours, then its iss the credential's.
    if (read === undefined) return this.ownFailure(uri, 'is not a list of ours');
    if (issuer !== undefined && read.issuer !== issuer) {
      return this.ownFailure(uri, "is issued by another issuer than the credential's");
    }
    return typeof read.status === 'string' ? `the status list ${uri}: ${read.status}` : read.status;
  }

  private ownFailure(uri: string, failure: string): string {
    const reason = `the status list ${uri} ${failure}`;
    this.logger.warn({ event: 'token-status-list.read-failed', uri, reason });
    return reason;
  }

  private async readList(
    uri: string,
    issuer: string | undefined,
    signal: AbortSignal,
  ): Promise<Read<TokenList>> {
    const fetched = await this.fetchToken(uri);
    const read =
      typeof fetched.result === 'string'
        ? { result: fetched.result, ttlMs: 0 }
        : await this.verified(fetched.result, uri, issuer, signal);
    if (typeof read.result === 'string') {
      read.result = `the status list ${uri} ${read.result}`;
      this.logger.warn({ event: 'token-status-list.read-failed', uri, reason: read.result });
    }
    return read;
  }

  /** The token at `uri`, over HTTP. */
  private async fetchToken(uri: string): Promise<{ result: string | { token: string } }> {
    let response;
    try {
      response = await guardedRequest(uri, this.policy, {
        timeoutMs: remoteStatusListLimits.deadlineMs,
        maxBytes: remoteStatusListLimits.bytes,
        headers: { accept: 'application/statuslist+jwt' },
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return { result: `could not be fetched: ${error.message}` };
    }
    if (response.status !== 200) return { result: `answered HTTP ${response.status}` };
    return { result: { token: response.body.toString('utf8').trim() } };
  }

  private async verified(
    { token }: { token: string },
    uri: string,
    issuer: string | undefined,
    signal: AbortSignal,
  ): Promise<Read<TokenList>> {
    const failed = (result: string) => ({ result, ttlMs: 0 });
    const now = this.clock() / 1000;
    const digest = `${issuer ?? '(mdoc)'} ${uri} ${createHash('sha256').update(token).digest('base64url')}`;
    const known = this.tokens.get(digest);
    if (known !== undefined) {
      // The same bytes pass the same checks; only the time and the issuer's key may have changed.
      if (known.exp !== undefined && known.exp <= now) return failed('has expired');
      const key = await this.keys.keyFor(known.signer, known.header, signal);
      if (typeof key !== 'string' && JSON.stringify(key) === known.key) {
        return { result: known.list, ttlMs: ttlMsOf(known.ttl, known.exp, now) };
      }
    }
    const decoded = decodeJws(token);
    if (typeof decoded === 'string') return failed(decoded);
    const { header, payload } = decoded;
    if (header.typ !== 'statuslist+jwt') return failed('is not typ statuslist+jwt');
    const unfit = algProblem(header.alg);
    if (unfit !== undefined) return failed(unfit);
    if (payload.iss !== undefined && issuer !== undefined && payload.iss !== issuer) {
      return failed("is issued by another issuer than the credential's");
    }
    const signer = issuer ?? payload.iss;
    if (typeof signer !== 'string') return failed('names no iss whose key could verify it');
    if (payload.sub !== uri) return failed('names another URI as its sub');
    const { exp } = payload;
    if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp))) {
      return failed('has an exp that is not a number');
    }
    if (exp !== undefined && exp <= now) return failed('has expired');
    const key = await this.keys.keyFor(signer, header, signal);
    if (typeof key === 'string') return failed(`has no key of the issuer: ${key}`);
    if (!jwsVerifies(token, key, header.alg as JwsAlgorithm)) {
      return failed("is not signed by the credential's issuer");
    }
    const { bits, lst } = (payload.status_list ?? {}) as Json;
    if (!(statusListBitSizes as readonly unknown[]).includes(bits) || typeof lst !== 'string') {
      return failed('has no status_list with bits 1, 2, 4 or 8 and an lst');
    }
    const bytes = decodeLst(lst);
    if (typeof bytes === 'string') return failed(bytes);
    const list = { bits: bits as number, bytes };
    this.tokens.set(digest, {
      list,
      header,
      key: JSON.stringify(key),
      signer,
      ttl: payload.ttl,
      exp,
    });
    return { result: list, ttlMs: ttlMsOf(payload.ttl, exp, now) };
  }
}

/** How long a verified list may be reused: its `ttl`, never past its `exp` nor the cap. */
function ttlMsOf(ttl: unknown, exp: number | undefined, now: number): number {
  return Math.min(
    typeof ttl === 'number' && ttl > 0 ? ttl * 1000 : 0,
    remoteStatusListLimits.maxTtlMs,
    exp === undefined ? Infinity : (exp - now) * 1000,
  );
}

/** A status value as a verifier's answer (draft-ietf-oauth-status-list §7.1): the word, or the failure. */
export function statusVerdict(
  value: number | string,
):
  | 'valid'
  | { code: 'credential_revoked' | 'credential_suspended' | 'status_unavailable'; reason: string } {
  if (typeof value === 'string') return { code: 'status_unavailable', reason: value };
  if (value === 0) return 'valid';
  if (value === 1)
    return {
      code: 'credential_revoked',
      reason: 'the status list says the credential is revoked (INVALID)',
    };
  if (value === 2)
    return {
      code: 'credential_suspended',
      reason: 'the status list says the credential is suspended',
    };
  return {
    code: 'status_unavailable',
    reason: `the status list gives the credential the status ${value}, which this verifier does not accept`,
  };
}
