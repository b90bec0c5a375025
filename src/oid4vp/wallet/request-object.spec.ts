import { generateKeyPairSync, sign } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, importJWK } from 'jose';
import { ed25519DidKey } from '../../did/did-key.js';
import {
  requestObjectClaims,
  signRequestObject,
  type RequestObjectInput,
} from './request-object.js';

const base: RequestObjectInput = {
  clientId: 'decentralized_identifier:did:key:z6MkExample',
  responseMode: 'direct_post',
  responseUri: 'https://agent.example/ctrl/oid4vp/acme/requests/ref/response',
  nonce: 'n-0S6_WzA2Mj',
  state: 'st-1',
  dcqlQuery: { credentials: [{ id: 'badge', format: 'dc+sd-jwt' }] },
  now: new Date('2026-01-01T00:00:00Z'),
  expiresAt: new Date('2026-01-01T00:10:00Z'),
};

function responseKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...privateKey.export({ format: 'jwk' }), kid: 'enc-1', alg: 'ECDH-ES' };
}

describe('requestObjectClaims', () => {
  it('says what OpenID4VP 1.0 asks of a signed request by reference', () => {
    expect(requestObjectClaims(base)).toEqual({
      aud: 'https://self-issued.me/v2',
      iat: 1767225600,
      exp: 1767226200,
      client_id: base.clientId,
      response_type: 'vp_token',
      response_mode: 'direct_post',
      response_uri: base.responseUri,
      nonce: base.nonce,
      state: base.state,
      dcql_query: base.dcqlQuery,
      client_metadata: {
        vp_formats_supported: {
          'dc+sd-jwt': {
            'sd-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
            'kb-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
          },
          ldp_vc: {
            proof_type_values: ['DataIntegrityProof'],
            cryptosuite_values: expect.arrayContaining(['eddsa-rdfc-2022']) as unknown,
          },
          mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
        },
      },
    });
  });

  it('offers the public half of the response key for direct_post.jwt, never its private part', () => {
    const key = responseKey();
    const claims = requestObjectClaims({
      ...base,
      responseMode: 'direct_post.jwt',
      responseKey: key,
    });
    const metadata = claims.client_metadata as Record<string, unknown>;
    expect(metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM', 'A256GCM']);
    expect(metadata.jwks).toEqual({
      keys: [
        { kty: 'EC', crv: 'P-256', x: key.x, y: key.y, kid: 'enc-1', use: 'enc', alg: 'ECDH-ES' },
      ],
    });
    expect(JSON.stringify(claims)).not.toContain(key.d as string);
  });

  it('echoes the wallet nonce of a POST', () => {
    expect(requestObjectClaims({ ...base, walletNonce: 'w-123' })).toMatchObject({
      wallet_nonce: 'w-123',
    });
    expect(requestObjectClaims(base)).not.toHaveProperty('wallet_nonce');
  });

  it('refuses a direct_post.jwt request without its key', () => {
    expect(() => requestObjectClaims({ ...base, responseMode: 'direct_post.jwt' })).toThrow();
  });
});

describe('signRequestObject', () => {
  it('signs with EdDSA, typed oauth-authz-req+jwt, kid the DID URL of the key, verifiable with the DID alone', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
    const { did, publicKeyMultibase } = ed25519DidKey(raw);
    const jwt = await signRequestObject(requestObjectClaims(base), {
      verificationMethod: `${did}#${publicKeyMultibase}`,
      algorithm: 'Ed25519',
      sign: ({ data }) => Promise.resolve(new Uint8Array(sign(null, data, privateKey))),
    });
    expect(decodeProtectedHeader(jwt)).toEqual({
      alg: 'EdDSA',
      typ: 'oauth-authz-req+jwt',
      kid: `${did}#${publicKeyMultibase}`,
    });
    const key = await importJWK(
      { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      'EdDSA',
    );
    const { payload } = await compactVerify(jwt, key);
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({ nonce: base.nonce });
  });

  it('refuses a key whose JOSE name it does not know', async () => {
    await expect(
      signRequestObject(
        {},
        {
          verificationMethod: 'did:x#1',
          algorithm: 'Bls12381',
          sign: () => Promise.resolve(new Uint8Array()),
        },
      ),
    ).rejects.toThrow(/No JOSE name/);
  });
});
