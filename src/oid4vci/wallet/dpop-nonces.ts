import { Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CLOCK, type Clock } from '../../common/clock.js';
import { Settings } from '../../config/settings.js';
import { KeyVault } from '../../secrets/key-vault.js';

/** A server nonce is good in the window it was made in and the next: 60 to 120 s (docs/oid4vci.md). */
export const dpopNonceWindowSeconds = 60;

/**
 * DPoP server nonces (RFC 9449 §8), stateless: the tenant and a time window under an HMAC keyed from
 * the master key, so every instance makes and checks the same ones without storing any. Replay is
 * stopped by the spent `jti` (SpentProofs), not by the nonce; the nonce bounds how early a proof can
 * have been made. Required when `DPOP_NONCE_REQUIRED` is true.
 */
@Injectable()
export class DpopNonces {
  private readonly key: Buffer;

  constructor(
    private readonly settings: Settings,
    @Inject(KeyVault) vault: KeyVault,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.key = vault.derivedKey('dpop-nonce');
  }

  get required(): boolean {
    return this.settings.DPOP_NONCE_REQUIRED;
  }

  /** The nonce of the current window. */
  current(tenantId: string): string {
    return this.of(tenantId, this.window());
  }

  /** Whether `nonce` is the tenant's of this window or of the one before. */
  isFresh(tenantId: string, nonce: string | undefined): boolean {
    if (nonce === undefined) return false;
    const given = Buffer.from(nonce);
    const window = this.window();
    return [window, window - 1].some((at) => {
      const expected = Buffer.from(this.of(tenantId, at));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }

  private window(): number {
    return Math.floor(this.clock() / 1000 / dpopNonceWindowSeconds);
  }

  private of(tenantId: string, window: number): string {
    return createHmac('sha256', this.key).update(`${tenantId}.${window}`).digest('base64url');
  }
}
