import { compactVerify, importJWK, type JWK } from 'jose';
import { type Es256SigningKey } from '../../src/did/tenant-keys.service.js';

/** A compact JWS (RFC 7515) of the payload, signed by the service's key: what an SD-JWT VC will be. */
export async function es256Jws(key: Es256SigningKey, payload: object): Promise<string> {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode({ alg: key.alg, kid: key.kid, typ: 'JWT' })}.${encode(payload)}`;
  const signature = await key.sign(new TextEncoder().encode(signingInput));
  return `${signingInput}.${Buffer.from(signature).toString('base64url')}`;
}

/** The payload of a JWS that jose, an independent library, verifies under the public JWK; throws otherwise. */
export async function verifiedByJose(jws: string, publicJwk: JWK): Promise<unknown> {
  const { payload, protectedHeader } = await compactVerify(
    jws,
    await importJWK(publicJwk, 'ES256'),
  );
  if (protectedHeader.alg !== 'ES256') throw new Error(`Signed with ${protectedHeader.alg}`);
  return JSON.parse(new TextDecoder().decode(payload));
}
