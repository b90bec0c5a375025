import { Inject, Injectable } from '@nestjs/common';
import { type JWK } from 'jose';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '../../common/clock.js';
import { type OutboundPolicy } from '../../common/outbound.js';
import { LoginProviderError } from './login-provider.error.js';
import { loginProviderLimits } from './login-provider-limits.js';
import { providerJson } from './provider-http.js';
import { discoveryUrl, metadataOf, type ProviderMetadata } from './provider-metadata.js';

interface KeySet {
  keys: JWK[];
  fetchedAt: number;
}

/**
 * Login providers' discovery documents and JWK Sets, each remembered for a bounded time in a bounded
 * LRU (loginProviderLimits): a login costs no discovery fetch, a key rotation is seen on the next
 * unknown `kid` (at most one refetch per `jwksRefetchMs`) or once the entry expires.
 */
@Injectable()
export class ProviderDocuments {
  private readonly metadata = new LRUCache<string, ProviderMetadata>({
    max: loginProviderLimits.remembered,
    ttl: loginProviderLimits.rememberedMs,
  });
  private readonly keySets = new LRUCache<string, KeySet>({
    max: loginProviderLimits.remembered,
    ttl: loginProviderLimits.rememberedMs,
  });

  constructor(@Inject(CLOCK) private readonly clock: Clock) {}

  /** Fetches the issuer's discovery document now and checks it (a save), remembering it. */
  async discover(issuer: string, policy: OutboundPolicy): Promise<ProviderMetadata> {
    const document = await providerJson(discoveryUrl(issuer), policy, 'the discovery document');
    const metadata = metadataOf(document, issuer, policy);
    this.metadata.set(issuer, metadata);
    return metadata;
  }

  /** The issuer's endpoints, remembered or discovered. */
  async metadataOf(issuer: string, policy: OutboundPolicy): Promise<ProviderMetadata> {
    return this.metadata.get(issuer) ?? this.discover(issuer, policy);
  }

  /**
   * The provider's public keys, remembered or fetched; `stale: true` (a `kid` the remembered set lacks)
   * fetches again unless the set was fetched within `jwksRefetchMs`.
   */
  async keys(jwksUri: string, policy: OutboundPolicy, stale = false): Promise<JWK[]> {
    const known = this.keySets.get(jwksUri);
    const now = this.clock();
    if (
      known !== undefined &&
      !(stale && now - known.fetchedAt >= loginProviderLimits.jwksRefetchMs)
    ) {
      return known.keys;
    }
    const set = await providerJson(jwksUri, policy, "the provider's JWK Set");
    if (!Array.isArray(set.keys)) {
      throw new LoginProviderError('invalid_answer', `the JWK Set at ${jwksUri} has no keys array`);
    }
    const keys = (set.keys as unknown[])
      .filter((key): key is JWK => typeof key === 'object' && key !== null && !('d' in key))
      .slice(0, loginProviderLimits.keys);
    this.keySets.set(jwksUri, { keys, fetchedAt: now });
    return keys;
  }
}
