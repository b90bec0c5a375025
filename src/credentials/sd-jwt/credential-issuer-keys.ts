import { Injectable, Logger } from '@nestjs/common';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../../common/outbound.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { Settings } from '../../config/settings.js';
import { TenantKeys } from '../../did/tenant-keys.service.js';
import { tenantIdPattern } from '../../tenancy/tenant-id.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { didIssuerKeys } from './did-issuer-keys.js';
import { publicKeyFor, shown, type IssuerJwk } from './jws.js';
import { isJwsAlgorithm } from '../../jose/algorithms.js';
import { type PublicJwk } from '../../jose/jwk.js';
import { cacheControlTtlMs, RememberedReads, type Read } from './remembered-reads.js';

type Json = Record<string, unknown>;

/** JWT VC Issuer Metadata read from other origins (SD-JWT VC draft §5). */
export const issuerMetadataLimits = {
  bytes: 64 * 1024,
  timeoutMs: 5_000,
  keys: 32,
  /** Without Cache-Control an issuer's keys are reused this long, and never longer than the cap. */
  defaultTtlMs: 60_000,
  maxTtlMs: 600_000,
  failureTtlMs: 30_000,
  remembered: 1_000,
} as const;

const ownIssuerPath = /^\/ctrl\/oid4vci\/([^/]+)$/;

/**
 * The key that verifies a JWS by an issuer (an SD-JWT VC, a Status List Token), by the issuer's
 * identifier and the header's `kid` and `alg`: a DID's assertion key (did:key, did:jwk, did:web), an
 * https issuer's JWT VC Issuer Metadata (`jwks` or `jwks_uri`) through the outbound guard, or, for a
 * tenant of this service, its keys read in process: the service never requests itself.
 */
@Injectable()
export class CredentialIssuerKeys {
  private readonly logger = new Logger(CredentialIssuerKeys.name);
  private readonly policy: OutboundPolicy;
  private readonly reads = new RememberedReads<IssuerJwk[]>({
    max: issuerMetadataLimits.remembered,
    maxSize: issuerMetadataLimits.remembered * issuerMetadataLimits.keys,
    sizeOf: (keys) => keys.length,
    failureTtlMs: issuerMetadataLimits.failureTtlMs,
    // The metadata, then its jwks_uri: each request is bounded by timeoutMs on its own.
    deadlineMs: 2 * issuerMetadataLimits.timeoutMs,
  });

  constructor(
    private readonly settings: Settings,
    private readonly tenantKeys: TenantKeys,
    private readonly dids: DidResolution,
  ) {
    this.policy = {
      allowPrivate: settings.statusListAllowPrivateTargets,
      ca: settings.OUTBOUND_CA_FILE,
    };
  }

  /** The public key for `header` (`kid`, `alg`) among `issuer`'s keys, or why there is none. */
  async keyFor(issuer: string, header: Json, deadline: AbortSignal): Promise<PublicJwk | string> {
    const kid = header.kid;
    if (kid !== undefined && (typeof kid !== 'string' || kid.length > 2_048)) {
      return 'the header kid is not a string of at most 2048 characters';
    }
    const keys = issuer.startsWith('did:')
      ? await didIssuerKeys(this.dids, issuer, kid, deadline)
      : await this.urlIssuerKeys(issuer, deadline);
    if (typeof keys === 'string') return keys;
    const named = kid === undefined ? keys : keys.filter((key) => key.kid === kid);
    const [key] = named;
    if (key === undefined) return `the issuer publishes no key with the header's kid`;
    if (named.length > 1) return 'the header names no kid, and the issuer publishes several keys';
    const alg = header.alg;
    if (!isJwsAlgorithm(alg)) return `the header's alg is ${shown(alg)}, not one we verify`;
    // The key's alg comes from the issuer's metadata: named by kind unless it is a string.
    const keyAlg: unknown = key.alg;
    if (keyAlg !== undefined && keyAlg !== alg && !(isEd(keyAlg) && isEd(alg))) {
      return `the issuer's key is for ${shown(keyAlg)}, not ${shown(alg)}`;
    }
    return publicKeyFor(key, alg);
  }

  private async urlIssuerKeys(
    issuer: string,
    deadline: AbortSignal,
  ): Promise<IssuerJwk[] | string> {
    if (!URL.canParse(issuer)) return 'the issuer is neither a URL nor a DID';
    const url = new URL(issuer);
    if (url.search !== '' || url.hash !== '') return 'the issuer URL has a query or fragment';
    const own = this.ownTenant(url);
    if (own !== undefined) return this.ownKeys(own);
    const path = url.pathname === '/' ? '' : url.pathname;
    const metadataUrl = `${url.origin}/.well-known/jwt-vc-issuer${path}`;
    return this.reads.read(
      issuer,
      () => this.readMetadata(issuer, metadataUrl),
      deadline,
      `the issuer's metadata was not read in the time the request has`,
    );
  }

  private ownTenant(url: URL): string | undefined {
    if (url.origin !== new URL(this.settings.PUBLIC_BASE_URL).origin) return undefined;
    const base = new URL(this.settings.PUBLIC_BASE_URL).pathname.replace(/\/$/, '');
    if (!url.pathname.startsWith(`${base}/`)) return undefined;
    const tenantId = ownIssuerPath.exec(url.pathname.slice(base.length))?.[1];
    return tenantId !== undefined && tenantIdPattern.test(tenantId) ? tenantId : undefined;
  }

  private async ownKeys(tenantId: string): Promise<IssuerJwk[] | string> {
    try {
      const keys = await this.tenantKeys.publicKeys(tenantId);
      return keys.map(({ kid, alg, publicJwk }) => ({ ...publicJwk, kid, alg }));
    } catch (error) {
      if (error instanceof DomainException) return 'the issuer is no tenant of this service';
      throw error;
    }
  }

  private async readMetadata(issuer: string, metadataUrl: string) {
    const result = await this.fetchKeys(issuer, metadataUrl);
    if (typeof result.result === 'string') {
      this.logger.warn({ event: 'jwt-vc-issuer.read-failed', issuer, reason: result.result });
    }
    return result;
  }

  private async fetchKeys(issuer: string, metadataUrl: string): Promise<Read<IssuerJwk[]>> {
    const metadata = await this.fetchJson(metadataUrl, "the issuer's JWT VC Issuer Metadata");
    if (typeof metadata.result === 'string') return failed(metadata.result);
    const { issuer: named, jwks, jwks_uri: jwksUri } = metadata.result;
    if (named !== issuer) {
      return failed("the issuer's JWT VC Issuer Metadata names another issuer");
    }
    if ((jwks === undefined) === (jwksUri === undefined)) {
      return failed("the issuer's JWT VC Issuer Metadata has not exactly one of jwks and jwks_uri");
    }
    let set: { result: unknown; ttlMs: number } = { result: jwks, ttlMs: metadata.ttlMs };
    if (jwksUri !== undefined) {
      if (typeof jwksUri !== 'string') return failed('its jwks_uri is not a string');
      set = await this.fetchJson(jwksUri, "the issuer's jwks_uri");
      if (typeof set.result === 'string') return failed(set.result);
      set.ttlMs = Math.min(set.ttlMs, metadata.ttlMs);
    }
    const keys = (set.result as Json | undefined)?.keys;
    if (!Array.isArray(keys) || keys.length > issuerMetadataLimits.keys) {
      return failed(
        `the issuer's JWK Set has no keys array of at most ${issuerMetadataLimits.keys}`,
      );
    }
    const usable = keys.filter(
      (key): key is IssuerJwk => typeof key === 'object' && key !== null && !('d' in key),
    );
    return { result: usable, ttlMs: set.ttlMs };
  }

  private async fetchJson(
    url: string,
    what: string,
  ): Promise<{ result: Json | string; ttlMs: number }> {
    let response;
    try {
      response = await guardedRequest(url, this.policy, {
        timeoutMs: issuerMetadataLimits.timeoutMs,
        maxBytes: issuerMetadataLimits.bytes,
        headers: { accept: 'application/json' },
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return failed(`${what} could not be fetched from ${url}: ${error.message}`);
    }
    if (response.status !== 200) {
      return failed(`${what} at ${url} answered HTTP ${response.status}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString('utf8'));
    } catch {
      return failed(`${what} at ${url} is not JSON`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return failed(`${what} at ${url} is not a JSON object`);
    }
    const ttlMs = Math.min(
      cacheControlTtlMs(response.headers['cache-control'], issuerMetadataLimits.defaultTtlMs),
      issuerMetadataLimits.maxTtlMs,
    );
    return { result: body as Json, ttlMs };
  }
}

const failed = (result: string) => ({ result, ttlMs: 0 });

const isEd = (alg: unknown) => alg === 'EdDSA' || alg === 'Ed25519';
