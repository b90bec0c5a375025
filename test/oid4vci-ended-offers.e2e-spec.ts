import { createHash } from 'node:crypto';
import { OfferExpiry } from '../src/oid4vci/offers/offer-expiry.js';
import { openClaims } from '../src/oid4vci/offers/offer-claims.js';
import { CredentialRequestRepository } from '../src/oid4vci/wallet/credential-request.repository.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { call } from './support/test-service.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { insertOffer, offerRow } from './support/oid4vci-offers.js';
import { useWalletErrorsSuite } from './support/oid4vci-wallet-errors.js';
import { keyProof, walletKey } from './support/oid4vci-wallet.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const claims = { given_name: 'Ada' };
/** Offers the offers API ended, or whose time ran out, as the wallet endpoints refuse them (docs/oid4vci.md). */
describe('OpenID4VCI wallet endpoints refuse an ended offer', () => {
  const suite = useWalletErrorsSuite();
  const {
    issuerOf,
    path,
    expectError,
    postToken,
    accessToken,
    nonce,
    postCredential,
    proofsOf,
    requestOf,
  } = suite;

  describe('when the offers API ended the offer, or its time ran out', () => {
    const offersApi = '/ctrl/api/v1.0/oid4vci/offers';
    const asAdmin = { as: 'admin' as const, headers: { 'x-tenant-id': 'acme' } };

    /** An offer made through the offers API, as an issuer's back office makes it. */
    async function apiOffer(): Promise<{ id: string; code: string }> {
      const answer = await suite.service.request<{
        id: string;
        credentialOffer: { grants: Record<string, { 'pre-authorized_code': string }> };
      }>(offersApi, {
        method: 'POST',
        ...asAdmin,
        body: { credentialConfigurationId: sdJwtBadge.id, claims },
      });
      expect(answer.status).toBe(201);
      return {
        id: answer.body.id,
        code: answer.body.credentialOffer.grants[preAuthorizedGrant]['pre-authorized_code'],
      };
    }
    const withdraw = (id: string) =>
      suite.service.request<Json>(`${offersApi}/${id}/withdraw`, { method: 'POST', ...asAdmin });
    const tokenFor = (code: string) =>
      postToken('acme', { grant_type: preAuthorizedGrant, 'pre-authorized_code': code });

    it('a withdrawn offer’s code at the token endpoint', async () => {
      const offer = await apiOffer();
      expect((await withdraw(offer.id)).status).toBe(200);
      expectError(await tokenFor(offer.code), 400, 'invalid_grant');
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'withdrawn',
        accessTokenHash: null,
      });
    });

    it('the credential request of an offer withdrawn after its token was issued: nothing is issued', async () => {
      const offer = await apiOffer();
      const granted = await tokenFor(offer.code);
      expect(granted.status).toBe(200);
      const token = (granted.body as { access_token: string }).access_token;
      const withdrawn = await withdraw(offer.id);
      expect(withdrawn.status).toBe(200);
      expect(withdrawn.body).toMatchObject({ status: 'withdrawn' });

      const before = suite.issued.length;
      const c = await nonce();
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()], { nonce: c }))),
        401,
        'invalid_token',
      );
      expect(suite.issued.length).toBe(before);
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'withdrawn',
        claims: null,
        credentialIds: [],
        notificationId: null,
      });
      // The refused request did not spend the nonce: another offer's request may use it.
      const other = await accessToken();
      expect(
        (
          await postCredential(
            other.token,
            requestOf(await proofsOf([await walletKey()], { nonce: c })),
          )
        ).status,
      ).toBe(200);
    });

    it('an offer past its time with a still-valid token, before and after the expiry job marked it', async () => {
      const offer = await insertOffer(suite.service, {
        tenantId: 'acme',
        configuration: sdJwtBadge,
        claims,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const granted = await tokenFor(offer.preAuthorizedCode);
      expect(granted.status).toBe(200);
      const token = (granted.body as { access_token: string }).access_token;
      // The offer ended a minute in; its token is good for five.
      suite.offset = 120_000;
      const request = async () =>
        requestOf([
          await keyProof(await walletKey(), {
            aud: issuerOf('acme'),
            nonce: await nonce(),
            iat: Math.floor((Date.now() + suite.offset) / 1000),
          }),
        ]);
      const before = suite.issued.length;
      expectError(await postCredential(token, await request()), 401, 'invalid_token');
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'accepted',
        credentialIds: [],
      });

      expect(await suite.service.app.get(OfferExpiry).expireDue()).toBeGreaterThanOrEqual(1);
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'expired',
        claims: null,
      });
      expectError(await postCredential(token, await request()), 401, 'invalid_token');
      expect(suite.issued.length).toBe(before);
    });

    it('the issuing transaction checks again under its lock: a withdraw or the end racing the request', async () => {
      const requests = suite.service.app.get(CredentialRequestRepository);
      // Taken in a transaction that is rolled back: the offer stays accepted for the next try.
      const take = async (offerId: string, token: string, at: number) => {
        const runner = suite.service.dataSource.createQueryRunner();
        await runner.startTransaction();
        try {
          // A nonce good at `at`, which the statement spends with the offer it takes.
          const nonceHash = createHash('sha256').update(`nonce ${at}`).digest();
          await runner.manager.query(
            'INSERT INTO oid4vci_nonce (nonce_hash, tenant_id, expires_at) VALUES ($1, $2, $3)',
            [nonceHash, 'acme', new Date(at + 60_000)],
          );
          const taken = await requests.take(
            {
              tenantId: 'acme',
              nonceHash,
              offerId,
              tokenHash: createHash('sha256').update(token).digest(),
              now: new Date(at),
              credentialIds: [],
              notificationId: 'n',
              keyAlgorithm: null,
              records: [],
            },
            runner.manager,
          );
          expect(taken.nonceFound).toBe(true);
          return taken.offer;
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      };
      const open = await accessToken();
      const taken = await take(open.offerId, open.token, Date.now());
      expect(taken).toMatchObject({ claimsSealed: expect.any(Buffer), claimsUnsealed: null });
      const vault = suite.service.app.get(KeyVault, { strict: false });
      expect(openClaims(vault, open.offerId, taken!)).toEqual(claims);
      expect(await offerRow(suite.service.dataSource, open.offerId)).toMatchObject({
        status: 'accepted',
      });
      // Past the offer's end (ten minutes), though the row still says accepted.
      expect(await take(open.offerId, open.token, Date.now() + 601_000)).toBeUndefined();
      expect((await withdraw(open.offerId)).status).toBe(200);
      expect(await take(open.offerId, open.token, Date.now())).toBeUndefined();
    });

    it('a failed offer’s token', async () => {
      // No request fails an accepted offer today; the token must still be worth nothing if one does.
      const { token, offerId } = await accessToken();
      await suite.service.dataSource.query(
        `UPDATE oid4vci_offer SET status = 'failed' WHERE id = $1`,
        [offerId],
      );
      const before = suite.issued.length;
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()]))),
        401,
        'invalid_token',
      );
      expect(suite.issued.length).toBe(before);
    });

    it('but an issued offer is no longer open: it cannot be withdrawn and takes notifications past its time', async () => {
      const offer = await insertOffer(suite.service, {
        tenantId: 'acme',
        configuration: sdJwtBadge,
        claims,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const granted = await tokenFor(offer.preAuthorizedCode);
      const token = (granted.body as { access_token: string }).access_token;
      const answer = await postCredential(token, requestOf(await proofsOf([await walletKey()])));
      expect(answer.status).toBe(200);
      expect((await withdraw(offer.id)).status).toBe(409);
      suite.offset = 120_000;
      const notified = await call(suite.service.url, path('acme', 'notification'), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: {
          notification_id: (answer.body as { notification_id: string }).notification_id,
          event: 'credential_accepted',
        },
      });
      expect(notified.status).toBe(204);
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'issued',
        notification: 'credential_accepted',
      });
    });
  });
});
