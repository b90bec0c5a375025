import { type DataSource } from 'typeorm';
import { OAuthError } from '../../common/oauth-error.js';
import { type EventOutbox } from '../../events/event-outbox.js';
import { type OfferGrantsService } from '../offers/offer-grants.service.js';
import { type ClientAttestationsService } from '../../wallet-providers/client-attestations.service.js';
import { type SpentProofs } from '../../wallet-providers/spent-proofs.js';
import { type DpopNonces } from './dpop-nonces.js';
import { preAuthorizedCodeGrant, TokenEndpointService } from './token-endpoint.service.js';

describe(TokenEndpointService.name, () => {
  const lookups: Buffer[] = [];
  const offers = {
    findByCode: (_tenantId: string, codeHash: Buffer) => {
      lookups.push(codeHash);
      return Promise.resolve(undefined);
    },
  } as unknown as OfferGrantsService;
  const attestations = {
    authenticate: () => Promise.resolve({ attested: false }),
  } as unknown as ClientAttestationsService;
  const service = new TokenEndpointService(
    {} as DataSource,
    offers,
    {} as EventOutbox,
    attestations,
    {} as SpentProofs,
    { required: false } as DpopNonces,
    () => Date.parse('2026-01-01T00:00:00Z'),
    { token: () => Promise.reject(new Error('not this grant')) },
  );
  const refusal = (code: string, dpop?: string) =>
    service
      .token({
        tenantId: 'acme',
        form: { grant_type: preAuthorizedCodeGrant, 'pre-authorized_code': code },
        dpop,
        url: 'http://localhost:8080/ctrl/oid4vci/acme/token',
        issuer: 'http://localhost:8080/ctrl/oid4vci/acme',
      })
      .then(
        () => 'issued',
        (error: unknown) => (error instanceof OAuthError ? error.error : String(error)),
      );

  beforeEach(() => (lookups.length = 0));

  it.each([
    ['too short', 'a'.repeat(42)],
    ['too long', 'a'.repeat(44)],
    ['not base64url', `${'a'.repeat(42)}+`],
    ['padded', `${'a'.repeat(42)}=`],
    ['one character', 'x'],
  ])(
    'refuses a code of the wrong shape (%s) without a lookup or the DPoP proof',
    async (_, code) => {
      expect(await refusal(code, 'not-a-dpop-proof')).toBe('invalid_grant');
      expect(lookups).toEqual([]);
    },
  );

  it('looks up a code of the right shape, and refuses it when no offer has it', async () => {
    expect(await refusal('A'.repeat(21) + '-_' + 'z'.repeat(20))).toBe('invalid_grant');
    expect(lookups).toHaveLength(1);
  });
});
