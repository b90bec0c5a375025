import { didJwk, publicMembers } from './holder-issuance.service.js';

describe('holder keys', () => {
  const jwk = { kty: 'EC', crv: 'P-256', x: 'x-coordinate', y: 'y-coordinate' };

  it('keeps only public JWK members', () => {
    expect(publicMembers({ ...jwk, d: 'secret' })).toEqual(jwk);
    expect(publicMembers({ kty: 'oct', k: 'secret' })).toEqual({ kty: 'oct' });
  });

  it('derives did:jwk from the public JWK (did:jwk §2), members sorted, private ones dropped', () => {
    const did = didJwk({ y: jwk.y, x: jwk.x, kty: 'EC', crv: 'P-256', d: 'secret' });
    expect(did).toBe(
      `did:jwk:${Buffer.from('{"crv":"P-256","kty":"EC","x":"x-coordinate","y":"y-coordinate"}').toString('base64url')}`,
    );
  });
});
