import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

const formatVersion = 1;
const nonceLength = 12;
const tagLength = 16;
const headerLength = 1 + nonceLength + tagLength;

/**
 * What a sealed secret is for, named by the feature that seals it beside its sealed columns (for example
 * `did/did.sealed-columns.ts`). It is part of the associated data: a box opens only for the purpose it
 * was sealed for, so a name, once used, is never changed.
 */
export type SealPurpose = string;

/** Binds a sealed secret to its owner and purpose: a row copied to another owner will not open. */
function associatedData(owner: string, purpose: SealPurpose): Buffer {
  return Buffer.from(`agent-service/${purpose}/v1/${owner}`, 'utf8');
}

/** A fingerprint that names a master key in the database without revealing it. */
function idOf(masterKey: Buffer): string {
  return createHash('sha256')
    .update('agent-service/master-key-id/v1')
    .update(masterKey)
    .digest('hex')
    .slice(0, 32);
}

/** The box names a master key this vault was not given (it was removed before everything was re-sealed). */
export class UnknownMasterKeyError extends Error {
  override name = 'UnknownMasterKeyError';

  constructor(readonly masterKeyId: string) {
    super(`Sealed under master key ${masterKeyId}, which is not configured`);
  }
}

/**
 * Encryption at rest for private keys: AES-256-GCM under a master key, a fresh 96-bit nonce per seal,
 * the owner as associated data. The current master key seals; previous ones only open, so that the key
 * can be rotated while boxes sealed under the old one are re-sealed. The keys never leave this object.
 */
export class KeyVault {
  /** The id of the current master key: the one to record beside every new seal. */
  readonly masterKeyId: string;
  readonly #keys = new Map<string, Buffer>();

  constructor(masterKey: Buffer, previousMasterKeys: readonly Buffer[] = []) {
    for (const key of [masterKey, ...previousMasterKeys]) {
      if (key.length !== 32) throw new Error('The master key must have 32 bytes');
      const id = idOf(key);
      if (this.#keys.has(id)) throw new Error('A master key is given twice');
      this.#keys.set(id, Buffer.from(key));
    }
    this.masterKeyId = idOf(masterKey);
  }

  /** The ids of the keys that open but no longer seal. */
  get previousMasterKeyIds(): string[] {
    return [...this.#keys.keys()].filter((id) => id !== this.masterKeyId);
  }

  /** Whether a box recorded under this key id can be opened here. */
  has(masterKeyId: string): boolean {
    return this.#keys.has(masterKeyId);
  }

  /** Returns version | nonce | tag | ciphertext, sealed under the current key (`masterKeyId`). */
  seal(owner: string, secret: Uint8Array, purpose: SealPurpose): Buffer {
    const nonce = randomBytes(nonceLength);
    const cipher = createCipheriv('aes-256-gcm', this.key(this.masterKeyId), nonce, {
      authTagLength: tagLength,
    });
    cipher.setAAD(associatedData(owner, purpose));
    const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([Buffer.of(formatVersion), nonce, cipher.getAuthTag(), ciphertext]);
  }

  /**
   * Opens with the key the box was recorded under, never by trying each key; throws
   * UnknownMasterKeyError when that key is not configured, and an Error when the box was sealed for
   * another owner or purpose, under another key, or altered.
   */
  open(
    owner: string,
    sealed: Uint8Array,
    purpose: SealPurpose,
    masterKeyId: string = this.masterKeyId,
  ): Buffer {
    const key = this.key(masterKeyId);
    const box = Buffer.from(sealed);
    if (box.length <= headerLength || box[0] !== formatVersion) {
      throw new Error('Not a sealed key of a known format');
    }
    const nonce = box.subarray(1, 1 + nonceLength);
    const tag = box.subarray(1 + nonceLength, headerLength);
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: tagLength });
    decipher.setAAD(associatedData(owner, purpose));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(box.subarray(headerLength)), decipher.final()]);
  }

  /** A JSON value sealed as `seal` seals bytes. */
  sealJson(owner: string, value: unknown, purpose: SealPurpose): Buffer {
    return this.seal(owner, Buffer.from(JSON.stringify(value), 'utf8'), purpose);
  }

  /**
   * A sealed JSON value opened as `open` opens bytes (null as the key id: sealed before key ids were
   * recorded, under the current key); its plaintext bytes are wiped once parsed.
   */
  openJson<T>(
    owner: string,
    sealed: Uint8Array,
    purpose: SealPurpose,
    masterKeyId?: string | null,
  ): T {
    const opened = this.open(owner, sealed, purpose, masterKeyId ?? this.masterKeyId);
    try {
      return JSON.parse(opened.toString('utf8')) as T;
    } finally {
      opened.fill(0);
    }
  }

  /**
   * A 32-byte key for `purpose`, derived from the current master key (HKDF-SHA256, RFC 5869): a MAC
   * every instance can check without storing anything; it changes when the master key is rotated.
   */
  derivedKey(purpose: SealPurpose): Buffer {
    const info = `agent-service/${purpose}/derived/v1`;
    return Buffer.from(hkdfSync('sha256', this.key(this.masterKeyId), Buffer.alloc(0), info, 32));
  }

  private key(masterKeyId: string): Buffer {
    const key = this.#keys.get(masterKeyId);
    if (key === undefined) throw new UnknownMasterKeyError(masterKeyId);
    return key;
  }

  /** Keeps the keys out of logs and inspection. */
  toJSON(): { masterKeyId: string } {
    return { masterKeyId: this.masterKeyId };
  }
}
