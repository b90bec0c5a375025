import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const formatVersion = 1;
const nonceLength = 12;
const tagLength = 16;
const headerLength = 1 + nonceLength + tagLength;

/** What a sealed secret is for: a DID's private key, or a webhook subscription's signing secret. */
export type SealPurpose = 'did-private-key' | 'webhook-secret';

/** Binds a sealed secret to its owner and purpose: a row copied to another owner will not open. */
function associatedData(owner: string, purpose: SealPurpose): Buffer {
  return Buffer.from(`agent-service/${purpose}/v1/${owner}`, 'utf8');
}

/**
 * Encryption at rest for private keys: AES-256-GCM under the master key, a fresh 96-bit nonce per seal,
 * the tenant id as associated data. The master key never leaves this object.
 */
export class KeyVault {
  readonly masterKeyId: string;
  readonly #masterKey: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('The master key must have 32 bytes');
    this.#masterKey = Buffer.from(masterKey);
    // A fingerprint that names the key in the database without revealing it.
    this.masterKeyId = createHash('sha256')
      .update('agent-service/master-key-id/v1')
      .update(this.#masterKey)
      .digest('hex')
      .slice(0, 32);
  }

  /** Returns version | nonce | tag | ciphertext. */
  seal(owner: string, secret: Uint8Array, purpose: SealPurpose = 'did-private-key'): Buffer {
    const nonce = randomBytes(nonceLength);
    const cipher = createCipheriv('aes-256-gcm', this.#masterKey, nonce, {
      authTagLength: tagLength,
    });
    cipher.setAAD(associatedData(owner, purpose));
    const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
    return Buffer.concat([Buffer.of(formatVersion), nonce, cipher.getAuthTag(), ciphertext]);
  }

  /** Throws when the box was sealed for another owner or purpose, another master key, or altered. */
  open(owner: string, sealed: Uint8Array, purpose: SealPurpose = 'did-private-key'): Buffer {
    const box = Buffer.from(sealed);
    if (box.length <= headerLength || box[0] !== formatVersion) {
      throw new Error('Not a sealed key of a known format');
    }
    const nonce = box.subarray(1, 1 + nonceLength);
    const tag = box.subarray(1 + nonceLength, headerLength);
    const decipher = createDecipheriv('aes-256-gcm', this.#masterKey, nonce, {
      authTagLength: tagLength,
    });
    decipher.setAAD(associatedData(owner, purpose));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(box.subarray(headerLength)), decipher.final()]);
  }

  /** Keeps the key out of logs and inspection. */
  toJSON(): { masterKeyId: string } {
    return { masterKeyId: this.masterKeyId };
  }
}
