import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { CLOCK, type Clock } from '../../common/clock.js';
import { violates } from '../../database/constraint-violation.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { secretHash } from '../offers/offer-secrets.js';
import { NonceRepository } from './nonce.repository.js';

/** How long a `c_nonce` can be spent (docs/oid4vci.md). */
export const nonceLifetimeSeconds = 300;
/** The foreign key that refuses a nonce of an unknown tenant (nonce.entity.ts). */
const nonceTenantKey = 'oid4vci_nonce_tenant_id_fkey';

/**
 * The `c_nonce` values of the nonce endpoint (OpenID4VCI 1.0 §7): random, stored by hash, spent once by
 * the credential request's statement (CredentialRequestRepository).
 */
@Injectable()
export class NoncesService {
  constructor(
    private readonly nonces: NonceRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * A new nonce of the tenant; TENANT_NOT_FOUND when there is none. The tenant is checked by the
   * insert's foreign key, not by a read first: this endpoint precedes every credential request, and the
   * key check is made by the insert anyway.
   */
  async issue(tenantId: string): Promise<string> {
    const nonce = randomBytes(32).toString('base64url');
    const expiresAt = new Date(this.clock() + nonceLifetimeSeconds * 1000);
    await this.nonces.insert(tenantId, secretHash(nonce), expiresAt).catch((error: unknown) => {
      if (violates(error, 'foreign-key', nonceTenantKey)) throw tenantNotFound(tenantId);
      throw error;
    });
    return nonce;
  }

  /** Deletes the expired nonces in batches; answers how many. */
  async purgeExpired(batchSize = 1000): Promise<number> {
    const now = new Date(this.clock());
    let total = 0;
    for (;;) {
      const deleted = await this.nonces.deleteExpiredBatch(now, batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
