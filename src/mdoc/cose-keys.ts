import { CoseKey, Curve, KeyType } from '@owf/mdoc';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type EcPublicJwk } from '../jose/jwk.js';

/** A P-256 coordinate: 32 bytes (RFC 9053 §7.1.1). */
const coordinateBytes = 32;

/** The COSE_Key (RFC 9052 §7) of a P-256 public JWK; as a `DeviceKey` for an MSO's deviceKeyInfo. */
export function coseKeyOf(jwk: EcPublicJwk, as: typeof CoseKey = CoseKey): CoseKey {
  return as.create({
    keyType: KeyType.Ec,
    curve: Curve['P-256'],
    x: Buffer.from(jwk.x, 'base64url'),
    y: Buffer.from(jwk.y, 'base64url'),
  });
}

/** The P-256 public JWK of a COSE_Key, or undefined when it is no EC2 P-256 public key. */
export function ecJwkOf(key: CoseKey): EcPublicJwk | undefined {
  const { x, y } = key;
  if (key.keyType !== KeyType.Ec || key.curve !== Curve['P-256']) return undefined;
  if (x?.length !== coordinateBytes || y?.length !== coordinateBytes) return undefined;
  return {
    kty: 'EC',
    crv: 'P-256',
    x: Buffer.from(x).toString('base64url'),
    y: Buffer.from(y).toString('base64url'),
  };
}

/** The node:crypto public key of a P-256 COSE_Key; throws when it is none or not on the curve. */
export function publicKeyOf(key: CoseKey): KeyObject {
  const jwk = ecJwkOf(key);
  if (jwk === undefined) throw new Error('the COSE key is not an EC2 P-256 public key');
  return createPublicKey({ key: jwk, format: 'jwk' });
}

/** The P-256 public JWK of a node:crypto key (private or public). */
export function ecJwkOfKeyObject(key: KeyObject): EcPublicJwk {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  const { crv, x, y } = publicKey.export({ format: 'jwk' });
  if (crv !== 'P-256' || x === undefined || y === undefined) {
    throw new Error('the key is not a P-256 key');
  }
  return { kty: 'EC', crv: 'P-256', x, y };
}
