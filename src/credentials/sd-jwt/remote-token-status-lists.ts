import { Inject, Injectable, Logger } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../../common/outbound.js';
import { DomainException } from '../../common/problem/domain.exception.js';
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

/**
 * Token Status Lists (draft-ietf-oauth-status-list §5, §8): the JWT at a credential's
 * `status.status_list.uri`, fetched through the outbound guard (our own tenants' read in process),
 * signed by the credential's issuer (found as for the credential), its `sub` that URI. A verified list
 * is remembered within its `ttl` and `exp` in a bounded LRU; concurrent reads share one fetch.
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

  /** The status value of `reference` (`{idx, uri}`) by `issuer`, or why it cannot be read. */
  async statusOf(
    reference: unknown,
    issuer: string,
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
    const list = await this.reads.read(
      `${issuer} ${uri}`,
      // The shared read finds the issuer's key by its own deadline: this caller only stops waiting.
      (signal) => this.readList(uri, issuer, signal),
      deadline,
      `the status list ${uri} was not read in the time the request has`,
    );
    if (typeof list === 'string') return list;
    const status = statusAt(list.bytes, list.bits, idx as number);
    return typeof status === 'string' ? `the status list ${uri}: ${status}` : status;
  }

  private async readList(
    uri: string,
    issuer: string,
    signal: AbortSignal,
  ): Promise<Read<TokenList>> {
    const fetched = await this.fetchToken(uri);
    const read =
      typeof fetched.result === 'string'
        ? { result: fetched.result, ttlMs: 0 }
        : await this.verified(fetched.result, uri, issuer, signal, fetched.own);
    if (typeof read.result === 'string') {
      read.result = `the status list ${uri} ${read.result}`;
      this.logger.warn({ event: 'token-status-list.read-failed', uri, reason: read.result });
    }
    return read;
  }

  /** The token at `uri`: one of our tenants' from the database, any other over HTTP. */
  private async fetchToken(
    uri: string,
  ): Promise<{ result: string | { token: string }; own: boolean }> {
    const ours = uri.endsWith('/token') ? this.statusLists.listOfUrl(uri.slice(0, -6)) : undefined;
    if (ours !== undefined) {
      try {
        const { token } = await this.statusLists.tokenList(ours.tenantId, ours.listId);
        return { result: { token }, own: true };
      } catch (error) {
        if (error instanceof DomainException) return { result: 'is not a list of ours', own: true };
        throw error;
      }
    }
    let response;
    try {
      response = await guardedRequest(uri, this.policy, {
        timeoutMs: remoteStatusListLimits.deadlineMs,
        maxBytes: remoteStatusListLimits.bytes,
        headers: { accept: 'application/statuslist+jwt' },
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return { result: `could not be fetched: ${error.message}`, own: false };
    }
    if (response.status !== 200) {
      return { result: `answered HTTP ${response.status}`, own: false };
    }
    return { result: { token: response.body.toString('utf8').trim() }, own: false };
  }

  private async verified(
    { token }: { token: string },
    uri: string,
    issuer: string,
    signal: AbortSignal,
    own: boolean,
  ): Promise<Read<TokenList>> {
    const failed = (result: string) => ({ result, ttlMs: 0 });
    const decoded = decodeJws(token);
    if (typeof decoded === 'string') return failed(decoded);
    const { header, payload } = decoded;
    if (header.typ !== 'statuslist+jwt') return failed('is not typ statuslist+jwt');
    const unfit = algProblem(header.alg);
    if (unfit !== undefined) return failed(unfit);
    if (payload.iss !== undefined && payload.iss !== issuer) {
      return failed("is issued by another issuer than the credential's");
    }
    if (payload.sub !== uri) return failed('names another URI as its sub');
    const now = this.clock() / 1000;
    const { exp } = payload;
    if (exp !== undefined && (typeof exp !== 'number' || !Number.isFinite(exp))) {
      return failed('has an exp that is not a number');
    }
    if (exp !== undefined && exp <= now) return failed('has expired');
    const key = await this.keys.keyFor(issuer, header, signal);
    if (typeof key === 'string') return failed(`has no key of the issuer: ${key}`);
    if (!(await jwsVerifies(token, key, header.alg as JwsAlgorithm))) {
      return failed("is not signed by the credential's issuer");
    }
    const { bits, lst } = (payload.status_list ?? {}) as Json;
    if (!(statusListBitSizes as readonly unknown[]).includes(bits) || typeof lst !== 'string') {
      return failed('has no status_list with bits 1, 2, 4 or 8 and an lst');
    }
    const bytes = decodeLst(lst);
    if (typeof bytes === 'string') return failed(bytes);
    // Our own lists are read at each verification: a revocation shows at once.
    const ttl = typeof payload.ttl === 'number' && payload.ttl > 0 ? payload.ttl * 1000 : 0;
    const ttlMs = own
      ? 0
      : Math.min(
          ttl,
          remoteStatusListLimits.maxTtlMs,
          exp === undefined ? Infinity : (exp - now) * 1000,
        );
    return { result: { bits: bits as number, bytes }, ttlMs };
  }
}
