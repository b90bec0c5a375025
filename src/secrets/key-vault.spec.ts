import { base58 } from '@scure/base';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { tenantIdPattern } from '../tenancy/tenant-id.js';
import { KeyVault, UnknownMasterKeyError } from './key-vault.js';

/** A purpose as a feature names it (did/did.sealed-columns.ts names the DID key's). */
const purpose = 'did-private-key';

/** Every textual form a 32-byte key could take when it leaks. */
function encodingsOf(bytes: Uint8Array): string[] {
  const buffer = Buffer.from(bytes);
  return [
    buffer.toString('hex'),
    buffer.toString('hex').toUpperCase(),
    buffer.toString('base64'),
    buffer.toString('base64url'),
    base58.encode(buffer),
  ];
}

/** version (1) | nonce (12) | tag (16) | ciphertext, as key-vault.ts documents. */
const headerLength = 1 + 12 + 16;

describe(KeyVault.name, () => {
  const masterKey = randomBytes(32);
  const vault = new KeyVault(masterKey);
  const seed = randomBytes(32);

  describe('seal and open', () => {
    it('gives back the sealed secret when opened for the same tenant', () => {
      expect(vault.open('acme', vault.seal('acme', seed, purpose), purpose)).toEqual(seed);
    });

    it('gives back any secret for any valid tenant id', () => {
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: 1, maxLength: 256 }),
          fc.stringMatching(tenantIdPattern),
          (secret, tenantId) => {
            expect(vault.open(tenantId, vault.seal(tenantId, secret, purpose), purpose)).toEqual(
              Buffer.from(secret),
            );
          },
        ),
      );
    });

    it('opens a box with a second vault built from the same master key', () => {
      const sealed = vault.seal('acme', seed, purpose);

      expect(new KeyVault(Buffer.from(masterKey)).open('acme', sealed, purpose)).toEqual(seed);
    });

    it('adds only the version, nonce and tag to the length of the secret', () => {
      expect(vault.seal('acme', seed, purpose)).toHaveLength(headerLength + seed.length);
    });

    it('starts the box with format version 1', () => {
      expect(vault.seal('acme', seed, purpose)[0]).toBe(1);
    });
  });

  describe('the sealed box', () => {
    it('differs each time the same secret is sealed, with a fresh nonce', () => {
      const boxes = Array.from({ length: 20 }, () => vault.seal('acme', seed, purpose));

      expect(new Set(boxes.map((box) => box.toString('hex'))).size).toBe(boxes.length);
      const nonces = boxes.map((box) => box.subarray(1, 13).toString('hex'));
      expect(new Set(nonces).size).toBe(boxes.length);
    });

    it('does not contain the secret bytes or any text form of them', () => {
      const sealed = vault.seal('acme', seed, purpose);

      expect(sealed.indexOf(seed)).toBe(-1);
      // Not even half of the secret appears in the box.
      expect(sealed.indexOf(seed.subarray(0, 16))).toBe(-1);
      expect(sealed.indexOf(seed.subarray(16))).toBe(-1);
      const text = sealed.toString('latin1');
      for (const encoded of encodingsOf(seed)) expect(text).not.toContain(encoded);
    });

    it('does not contain the master key', () => {
      const sealed = vault.seal('acme', seed, purpose);

      expect(sealed.indexOf(masterKey)).toBe(-1);
      expect(sealed.indexOf(masterKey.subarray(0, 16))).toBe(-1);
    });
  });

  describe('refusing to open', () => {
    it('fails for another tenant id', () => {
      const sealed = vault.seal('acme', seed, purpose);

      for (const otherTenant of ['beta', 'acme2', 'acm', 'Acme', 'ACME', '']) {
        expect(() => vault.open(otherTenant, sealed, purpose)).toThrow();
      }
    });

    it('fails under another master key', () => {
      const sealed = vault.seal('acme', seed, purpose);

      expect(() => new KeyVault(randomBytes(32)).open('acme', sealed, purpose)).toThrow();
    });

    it('fails under a master key that differs in a single bit', () => {
      const sealed = vault.seal('acme', seed, purpose);
      const nearlyTheKey = Buffer.from(masterKey);
      nearlyTheKey[31] ^= 0x01;

      expect(() => new KeyVault(nearlyTheKey).open('acme', sealed, purpose)).toThrow();
    });

    it('fails when any single bit of the box is flipped', () => {
      const sealed = vault.seal('acme', seed, purpose);
      const opened: string[] = [];

      for (let index = 0; index < sealed.length; index += 1) {
        for (let bit = 0; bit < 8; bit += 1) {
          const tampered = Buffer.from(sealed);
          tampered[index] ^= 1 << bit;
          try {
            vault.open('acme', tampered, purpose);
            opened.push(`byte ${index} bit ${bit}`);
          } catch {
            // Refused, as it must be.
          }
        }
      }

      expect(opened).toEqual([]);
    });

    it.each([0, 2, 0xff])('fails when the version byte is %i', (version) => {
      const sealed = vault.seal('acme', seed, purpose);
      sealed[0] = version;

      expect(() => vault.open('acme', sealed, purpose)).toThrow(
        'Not a sealed key of a known format',
      );
    });

    it('fails when the box is cut short', () => {
      const sealed = vault.seal('acme', seed, purpose);

      for (const length of [0, 1, headerLength, headerLength + 1, sealed.length - 1]) {
        expect(() => vault.open('acme', sealed.subarray(0, length), purpose)).toThrow();
      }
    });

    it('fails when bytes are appended to the box', () => {
      const sealed = vault.seal('acme', seed, purpose);

      expect(() => vault.open('acme', Buffer.concat([sealed, Buffer.of(0)]), purpose)).toThrow();
    });

    it('fails when the ciphertext of one box is moved under the header of another', () => {
      const first = vault.seal('acme', seed, purpose);
      const second = vault.seal('acme', randomBytes(32), purpose);
      const spliced = Buffer.concat([
        first.subarray(0, headerLength),
        second.subarray(headerLength),
      ]);

      expect(() => vault.open('acme', spliced, purpose)).toThrow();
    });
  });

  describe('the master key', () => {
    it.each([0, 16, 24, 31, 33, 64])('is refused when it has %i bytes', (length) => {
      expect(() => new KeyVault(randomBytes(length))).toThrow('The master key must have 32 bytes');
    });

    it('is copied, so wiping the caller’s buffer does not break the vault', () => {
      const callerKey = randomBytes(32);
      const ownVault = new KeyVault(callerKey);
      const sealed = ownVault.seal('acme', seed, purpose);

      callerKey.fill(0);

      expect(ownVault.open('acme', sealed, purpose)).toEqual(seed);
      expect(ownVault.open('acme', ownVault.seal('acme', seed, purpose), purpose)).toEqual(seed);
      expect(() => new KeyVault(callerKey).open('acme', sealed, purpose)).toThrow();
    });
  });

  describe('masterKeyId', () => {
    it('is the same for two vaults with the same key', () => {
      expect(new KeyVault(Buffer.from(masterKey)).masterKeyId).toBe(vault.masterKeyId);
    });

    it('differs between keys, even keys one bit apart', () => {
      const nearlyTheKey = Buffer.from(masterKey);
      nearlyTheKey[0] ^= 0x80;

      expect(new KeyVault(randomBytes(32)).masterKeyId).not.toBe(vault.masterKeyId);
      expect(new KeyVault(nearlyTheKey).masterKeyId).not.toBe(vault.masterKeyId);
    });

    it('is 32 hexadecimal characters, the width of its database column', () => {
      expect(vault.masterKeyId).toMatch(/^[0-9a-f]{32}$/);
    });

    it('does not reveal the key', () => {
      const keyHex = masterKey.toString('hex');

      expect(keyHex).not.toContain(vault.masterKeyId);
      expect(keyHex.slice(0, 32)).not.toBe(vault.masterKeyId);
      for (const encoded of encodingsOf(masterKey)) {
        expect(vault.masterKeyId).not.toContain(encoded);
        expect(encoded).not.toContain(vault.masterKeyId);
      }
    });
  });

  describe('several master keys', () => {
    const oldKey = randomBytes(32);
    const olderKey = randomBytes(32);
    const oldVault = new KeyVault(oldKey);
    const olderVault = new KeyVault(olderKey);
    const rotated = new KeyVault(masterKey, [oldKey, olderKey]);

    it('seals under the current key only, and records its id', () => {
      expect(rotated.masterKeyId).toBe(vault.masterKeyId);
      const sealed = rotated.seal('acme', seed, purpose);

      expect(vault.open('acme', sealed, purpose)).toEqual(seed);
      expect(() => oldVault.open('acme', sealed, purpose)).toThrow();
    });

    it('opens a box under each listed key by the id recorded with it', () => {
      const fromOld = oldVault.seal('acme', seed, purpose);
      const fromOlder = olderVault.seal('acme', seed, 'webhook-secret');

      expect(rotated.open('acme', fromOld, 'did-private-key', oldVault.masterKeyId)).toEqual(seed);
      expect(rotated.open('acme', fromOlder, 'webhook-secret', olderVault.masterKeyId)).toEqual(
        seed,
      );
      expect(
        rotated.open(
          'acme',
          rotated.seal('acme', seed, purpose),
          'did-private-key',
          vault.masterKeyId,
        ),
      ).toEqual(seed);
    });

    it('opens with the recorded key only, never trying the others', () => {
      const fromOld = oldVault.seal('acme', seed, purpose);

      expect(() =>
        rotated.open('acme', fromOld, 'did-private-key', olderVault.masterKeyId),
      ).toThrow('Unsupported state or unable to authenticate data');
      // Without an id, the box is taken to be under the current key.
      expect(() => rotated.open('acme', fromOld, purpose)).toThrow();
    });

    it('refuses a box recorded under a key it was not given, naming that id', () => {
      const stranger = new KeyVault(randomBytes(32));
      const sealed = stranger.seal('acme', seed, purpose);
      let caught: unknown;
      try {
        rotated.open('acme', sealed, 'did-private-key', stranger.masterKeyId);
      } catch (error) {
        caught = error;
      }

      expect(caught).toBeInstanceOf(UnknownMasterKeyError);
      expect((caught as UnknownMasterKeyError).masterKeyId).toBe(stranger.masterKeyId);
      expect((caught as Error).message).toContain(stranger.masterKeyId);
      expect(() =>
        oldVault.open(
          'acme',
          oldVault.seal('acme', seed, purpose),
          'did-private-key',
          'f'.repeat(32),
        ),
      ).toThrow(UnknownMasterKeyError);
    });

    it('tells which key ids it has: the current one and the previous ones', () => {
      expect(rotated.has(vault.masterKeyId)).toBe(true);
      expect(rotated.has(oldVault.masterKeyId)).toBe(true);
      expect(rotated.has(new KeyVault(randomBytes(32)).masterKeyId)).toBe(false);
      expect(rotated.previousMasterKeyIds).toEqual([oldVault.masterKeyId, olderVault.masterKeyId]);
      expect(vault.previousMasterKeyIds).toEqual([]);
    });

    it('refuses a key given twice, or a previous key of the wrong length', () => {
      expect(() => new KeyVault(masterKey, [Buffer.from(masterKey)])).toThrow(
        'A master key is given twice',
      );
      expect(() => new KeyVault(masterKey, [oldKey, Buffer.from(oldKey)])).toThrow(
        'A master key is given twice',
      );
      expect(() => new KeyVault(masterKey, [randomBytes(16)])).toThrow(
        'The master key must have 32 bytes',
      );
    });

    it('does not reveal any of its keys when logged or serialized', () => {
      const inspected = inspect(rotated, { depth: 5, showHidden: true });
      const json = JSON.stringify(rotated);

      for (const key of [masterKey, oldKey, olderKey]) {
        for (const encoded of encodingsOf(key)) {
          expect(inspected).not.toContain(encoded);
          expect(json).not.toContain(encoded);
        }
      }
      expect(Object.values(rotated)).toEqual([rotated.masterKeyId]);
    });
  });

  describe('serialization', () => {
    it('shows only the masterKeyId in JSON', () => {
      const json = JSON.stringify(vault);

      expect(JSON.parse(json)).toEqual({ masterKeyId: vault.masterKeyId });
      for (const encoded of encodingsOf(masterKey)) expect(json).not.toContain(encoded);
    });

    it('does not reveal the key when the vault is logged or its properties are listed', () => {
      const inspected = inspect(vault, { depth: 5, showHidden: true });
      const spread = JSON.stringify({ ...vault });

      for (const encoded of encodingsOf(masterKey)) {
        expect(inspected).not.toContain(encoded);
        expect(spread).not.toContain(encoded);
      }
      // A Buffer would show its bytes as `<Buffer 8f 3a ...>`.
      expect(inspected).not.toContain('Buffer');
      expect(Object.values(vault)).toEqual([vault.masterKeyId]);
    });
  });
  it('derives one key per purpose from the current master key, the same on every instance', () => {
    const masterKey = randomBytes(32);
    const vault = new KeyVault(masterKey);
    expect(vault.derivedKey('a')).toHaveLength(32);
    expect(vault.derivedKey('a')).toEqual(new KeyVault(masterKey).derivedKey('a'));
    expect(vault.derivedKey('a')).not.toEqual(vault.derivedKey('b'));
    expect(vault.derivedKey('a')).not.toEqual(new KeyVault(randomBytes(32)).derivedKey('a'));
    expect(vault.derivedKey('a')).not.toEqual(masterKey);
  });
});
