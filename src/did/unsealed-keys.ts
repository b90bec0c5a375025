import { type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type KeyVault, type SealPurpose } from '../secrets/key-vault.js';

/** A tenant's sealed private key as the signing request read it, in one statement, with its public key. */
export interface SealedPrivateKey {
  tenantId: string;
  purpose: SealPurpose;
  sealed: Buffer;
  masterKeyId: string;
  /** The public key the box belongs to (its kid or raw key, as text): part of what the key is made from. */
  publicKey: string;
}

/**
 * The tenants' private keys, opened by the KeyVault and imported once, kept as `KeyObject`s in a bounded
 * LRU instead of unsealed and imported for every signature (docs/architecture.md, A tenant's signing
 * keys). An entry is found by everything the key is made from, the sealed box included, which each
 * request reads afresh: a new key, a re-created tenant or a re-seal under another master key, on any
 * instance, is a new box and a miss, never a stale key. `max` 0 keeps none.
 */
export class UnsealedKeys {
  private readonly kept: LRUCache<string, { tenantId: string; key: KeyObject }> | undefined;

  constructor(
    private readonly vault: KeyVault,
    max: number,
  ) {
    this.kept = max > 0 ? new LRUCache({ max }) : undefined;
  }

  /** How many keys are kept now. */
  get size(): number {
    return this.kept?.size ?? 0;
  }

  /**
   * The box's private key: kept, or opened and made by `importKey` from the opened secret, which is wiped
   * after. Throws as `KeyVault.open` does when the box does not open; nothing is kept then.
   */
  privateKey(box: SealedPrivateKey, importKey: (secret: Buffer) => KeyObject): KeyObject {
    const id = idOf(box);
    const kept = this.kept?.get(id);
    if (kept !== undefined) return kept.key;
    const secret = this.vault.open(box.tenantId, box.sealed, box.purpose, box.masterKeyId);
    let key: KeyObject;
    try {
      key = importKey(secret);
    } finally {
      secret.fill(0);
    }
    this.kept?.set(id, { tenantId: box.tenantId, key });
    return key;
  }

  /** Drops the tenant's keys: after its deletion no key of it stays in this instance's memory. */
  forgetTenant(tenantId: string): void {
    if (this.kept === undefined) return;
    const ids = [...this.kept.entries()].filter(([, entry]) => entry.tenantId === tenantId);
    for (const [id] of ids) this.kept.delete(id);
  }
}

/** Every input of the key, the whole box included: equal ids open to equal keys. */
function idOf(box: SealedPrivateKey): string {
  const { tenantId, purpose, masterKeyId, publicKey, sealed } = box;
  return JSON.stringify([tenantId, purpose, masterKeyId, publicKey, sealed.toString('base64')]);
}
