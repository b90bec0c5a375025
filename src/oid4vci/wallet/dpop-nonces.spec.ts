import { randomBytes } from 'node:crypto';
import { type Settings } from '../../config/settings.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { DpopNonces, dpopNonceWindowSeconds } from './dpop-nonces.js';

describe(DpopNonces.name, () => {
  const window = dpopNonceWindowSeconds * 1000;
  const masterKey = randomBytes(32);
  let now: number;
  const nonces = (key = masterKey) =>
    new DpopNonces({ DPOP_NONCE_REQUIRED: true } as Settings, new KeyVault(key), () => now);

  beforeEach(() => (now = Date.UTC(2026, 0, 1)));

  it('accepts the tenant’s nonce in its window and the next, then no longer', () => {
    const service = nonces();
    const nonce = service.current('acme');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(service.isFresh('acme', nonce)).toBe(true);
    now += window;
    expect(service.isFresh('acme', nonce)).toBe(true);
    now += window;
    expect(service.isFresh('acme', nonce)).toBe(false);
  });

  it('is the same on every instance with the master key, and another tenant’s or key’s is refused', () => {
    const nonce = nonces().current('acme');
    expect(nonces().isFresh('acme', nonce)).toBe(true);
    expect(nonces().isFresh('other', nonce)).toBe(false);
    expect(nonces(randomBytes(32)).isFresh('acme', nonce)).toBe(false);
    expect(nonces().isFresh('acme', undefined)).toBe(false);
    expect(nonces().isFresh('acme', `${nonce}x`)).toBe(false);
  });
});
