import { createPublicKey, generateKeyPairSync, randomBytes, sign, verify } from 'node:crypto';
import { KeyVault } from '../secrets/key-vault.js';
import { ed25519PrivateKey } from './signer.js';
import { UnsealedKeys, type SealedPrivateKey } from './unsealed-keys.js';

const purpose = 'test-key';
const data = Buffer.from('signed');

/** A fresh Ed25519 key of the tenant, sealed by `vault`, with its raw public key. */
function sealedKey(vault: KeyVault, tenantId: string) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
  const box: SealedPrivateKey = {
    tenantId,
    purpose,
    sealed: vault.seal(tenantId, seed, purpose),
    masterKeyId: vault.masterKeyId,
    publicKey: raw.toString('base64url'),
  };
  return { box, raw, seed, publicKey };
}

/** A vault that records the boxes it opened. */
class CountingVault extends KeyVault {
  readonly opened: Parameters<KeyVault['open']>[] = [];

  override open(...args: Parameters<KeyVault['open']>): Buffer {
    this.opened.push(args);
    return super.open(...args);
  }
}

describe('UnsealedKeys', () => {
  const masterKey = randomBytes(32);
  const vault = new CountingVault(masterKey);

  beforeEach(() => {
    vault.opened.length = 0;
  });

  /** The key of `sealed`, through `keys`, as Ed25519. */
  const keyOf = (keys: UnsealedKeys, sealed: ReturnType<typeof sealedKey>) =>
    keys.privateKey(sealed.box, (seed) => ed25519PrivateKey(sealed.raw, seed));

  it('opens a box once and signs with the key it kept, the private key of its public key', () => {
    const keys = new UnsealedKeys(vault, 10);
    const acme = sealedKey(vault, 'acme');
    const first = keyOf(keys, acme);
    const again = keyOf(keys, {
      ...acme,
      box: { ...acme.box, sealed: Buffer.from(acme.box.sealed) },
    });
    expect(again).toBe(first);
    expect(vault.opened).toHaveLength(1);
    expect(verify(null, data, acme.publicKey, sign(null, data, again))).toBe(true);
  });

  it('wipes the opened secret once the key is made', () => {
    const keys = new UnsealedKeys(vault, 10);
    const acme = sealedKey(vault, 'acme');
    let secret: Buffer | undefined;
    keys.privateKey(acme.box, (seed) => {
      secret = seed;
      expect(seed).toEqual(acme.seed);
      return ed25519PrivateKey(acme.raw, seed);
    });
    expect(secret).toEqual(Buffer.alloc(32));
  });

  it('keeps at most `max` keys, dropping the least recently used', () => {
    const keys = new UnsealedKeys(vault, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((tenant) => sealedKey(vault, tenant));
    keyOf(keys, a);
    keyOf(keys, b);
    keyOf(keys, a);
    keyOf(keys, c);
    expect(keys.size).toBe(2);
    expect(vault.opened).toHaveLength(3);
    // a was used after b: b was dropped, a and c are kept.
    keyOf(keys, a);
    keyOf(keys, c);
    expect(vault.opened).toHaveLength(3);
    keyOf(keys, b);
    expect(vault.opened).toHaveLength(4);
    expect(keys.size).toBe(2);
  });

  it("finds a new box as a new key: a rotated key, a re-created tenant's", () => {
    const keys = new UnsealedKeys(vault, 10);
    const old = sealedKey(vault, 'acme');
    const rotated = sealedKey(vault, 'acme');
    keyOf(keys, old);
    const newKey = keyOf(keys, rotated);
    expect(vault.opened).toHaveLength(2);
    expect(verify(null, data, rotated.publicKey, sign(null, data, newKey))).toBe(true);
    expect(verify(null, data, old.publicKey, sign(null, data, newKey))).toBe(false);
  });

  it('opens the box a rewrap sealed again under the next master key, to the same key', () => {
    const next = new CountingVault(randomBytes(32), [masterKey]);
    const keys = new UnsealedKeys(next, 10);
    const acme = sealedKey(vault, 'acme');
    const before = keyOf(keys, acme);
    const resealed = {
      ...acme,
      box: {
        ...acme.box,
        sealed: next.seal('acme', acme.seed, purpose),
        masterKeyId: next.masterKeyId,
      },
    };
    const after = keyOf(keys, resealed);
    expect(next.opened).toEqual([
      ['acme', acme.box.sealed, purpose, vault.masterKeyId],
      ['acme', resealed.box.sealed, purpose, next.masterKeyId],
    ]);
    expect(verify(null, data, acme.publicKey, sign(null, data, after))).toBe(true);
    expect(after.equals(before)).toBe(true);
  });

  it("drops a deleted tenant's keys, and only those", () => {
    const keys = new UnsealedKeys(vault, 10);
    const [acme, acmeToo, other] = [
      sealedKey(vault, 'acme'),
      sealedKey(vault, 'acme'),
      sealedKey(vault, 'other'),
    ];
    for (const sealed of [acme, acmeToo, other]) keyOf(keys, sealed);
    keys.forgetTenant('acme');
    expect(keys.size).toBe(1);
    keyOf(keys, other);
    expect(vault.opened).toHaveLength(3);
    keyOf(keys, acme);
    expect(vault.opened).toHaveLength(4);
  });

  it('keeps nothing with max 0: every call opens its box', () => {
    const keys = new UnsealedKeys(vault, 0);
    const acme = sealedKey(vault, 'acme');
    keyOf(keys, acme);
    keyOf(keys, acme);
    expect(vault.opened).toHaveLength(2);
    expect(keys.size).toBe(0);
    keys.forgetTenant('acme');
  });

  it('throws for a box that does not open for its tenant, and keeps nothing', () => {
    const keys = new UnsealedKeys(vault, 10);
    const theirs = sealedKey(vault, 'other');
    const copied = { ...theirs, box: { ...theirs.box, tenantId: 'acme' } };
    expect(() => keyOf(keys, copied)).toThrow();
    expect(keys.size).toBe(0);
    expect(createPublicKey(keyOf(keys, theirs)).export({ format: 'jwk' }).x).toBe(
      theirs.box.publicKey,
    );
  });
});
