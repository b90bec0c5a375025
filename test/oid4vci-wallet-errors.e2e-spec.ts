import { randomBytes } from 'node:crypto';
import { call, postForm, startTestService } from './support/test-service.js';
import { offerRow } from './support/oid4vci-offers.js';
import { useWalletErrorsSuite } from './support/oid4vci-wallet-errors.js';
import { dpopProof, walletKey } from './support/oid4vci-wallet.js';

const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
/**
 * Every refusal of the wallet endpoints over raw HTTP: OAuth errors (RFC 6749 §5.2, RFC 6750 §3.1,
 * OpenID4VCI 1.0 §8.3.1.2, §11.3) with `Cache-Control: no-store`, never a 5xx; and the misuse of codes,
 * tokens, nonces and paths, with the two races (docs/oid4vci.md). This file: the token, nonce and notification endpoints, and the limit by address.
 */
describe('OpenID4VCI wallet endpoints refuse', () => {
  const suite = useWalletErrorsSuite();
  const {
    issuerOf,
    path,
    expectError,
    postToken,
    newOffer,
    accessToken,
    postCredential,
    proofsOf,
    requestOf,
  } = suite;

  describe('at the token endpoint', () => {
    it('a grant type other than the pre-authorized or authorization code, or none', async () => {
      expectError(
        await postToken('acme', { grant_type: 'client_credentials' }),
        400,
        'unsupported_grant_type',
      );
      // The authorization code grant, without its verifier (test/oid4vci-authorization-code.e2e-spec.ts).
      expectError(
        await postToken('acme', { grant_type: 'authorization_code', code: 'x' }),
        400,
        'invalid_request',
      );
      expectError(await postToken('acme', { 'pre-authorized_code': 'x' }), 400, 'invalid_request');
    });

    it('a missing code, a body that is not a form, a repeated or oversized parameter', async () => {
      expectError(
        await postToken('acme', { grant_type: preAuthorizedGrant }),
        400,
        'invalid_request',
      );
      const json = await call(suite.service.url, path('acme', 'token'), {
        method: 'POST',
        body: { grant_type: preAuthorizedGrant, 'pre-authorized_code': 'x' },
      });
      expectError(json, 400, 'invalid_request');
      const twice = await postForm(suite.service.url, path('acme', 'token'), [
        ['grant_type', preAuthorizedGrant],
        ['pre-authorized_code', 'a'],
        ['pre-authorized_code', 'b'],
      ]);
      expectError(twice, 400, 'invalid_request');
      const huge = await postToken('acme', {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': 'x'.repeat(20_000),
      });
      expectError(huge, 400, 'invalid_request');
      const empty = await call(suite.service.url, path('acme', 'token'), { method: 'POST' });
      expectError(empty, 400, 'invalid_request');
    });

    it('an unknown code, another tenant’s, an expired offer’s, a used one', async () => {
      const grant = (code: string) => ({
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': code,
      });
      expectError(
        await postToken('acme', grant(randomBytes(32).toString('base64url'))),
        400,
        'invalid_grant',
      );
      const offer = await newOffer();
      expectError(await postToken('other', grant(offer.preAuthorizedCode)), 400, 'invalid_grant');
      expect((await offerRow(suite.service.dataSource, offer.id)).status).toBe('offered');
      const expired = await newOffer({ expiresAt: new Date(Date.now() - 1000) });
      expectError(await postToken('acme', grant(expired.preAuthorizedCode)), 400, 'invalid_grant');
      expect((await postToken('acme', grant(offer.preAuthorizedCode))).status).toBe(200);
      expectError(await postToken('acme', grant(offer.preAuthorizedCode)), 400, 'invalid_grant');
    });

    it('a missing or unexpected transaction code, and a wrong one', async () => {
      const withCode = await newOffer({ txCode: '1234' });
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': withCode.preAuthorizedCode,
      };
      expectError(await postToken('acme', grant), 400, 'invalid_request');
      expectError(await postToken('acme', { ...grant, tx_code: '9999' }), 400, 'invalid_grant');
      expect(await offerRow(suite.service.dataSource, withCode.id)).toMatchObject({
        status: 'offered',
        txCodeFailures: 1,
      });
      const ok = await postToken('acme', { ...grant, tx_code: '1234' });
      expect(ok.status).toBe(200);
      expect(await offerRow(suite.service.dataSource, withCode.id)).toMatchObject({
        status: 'accepted',
        txCodeFailures: 1,
      });
      const without = await newOffer();
      expectError(
        await postToken('acme', {
          grant_type: preAuthorizedGrant,
          'pre-authorized_code': without.preAuthorizedCode,
          tx_code: '1',
        }),
        400,
        'invalid_request',
      );
    });

    it('after five wrong transaction codes, even the right one: the offer failed and its claims are gone', async () => {
      const offer = await newOffer({ txCode: '1234' });
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': offer.preAuthorizedCode,
      };
      // Parallel guesses share the same five tries.
      const guesses = await Promise.all(
        ['0000', '0001', '0002', '0003', '0004', '0005', '0006'].map((tx) =>
          postToken('acme', { ...grant, tx_code: tx }),
        ),
      );
      for (const guess of guesses) expectError(guess, 400, 'invalid_grant');
      expect(await offerRow(suite.service.dataSource, offer.id)).toMatchObject({
        status: 'failed',
        failure: 'tx_code_tries',
        claims: null,
        txCodeFailures: 5,
      });
      expectError(await postToken('acme', { ...grant, tx_code: '1234' }), 400, 'invalid_grant');
    });

    it('a bad DPoP proof', async () => {
      const key = await walletKey();
      const htu = `${issuerOf('acme')}/token`;
      const bad = [
        await dpopProof(key, { htu: `${issuerOf('other')}/token` }),
        await dpopProof(key, { htu, payload: { htm: 'GET' } }),
        await dpopProof(key, { htu, header: { typ: 'JWT' } }),
        await dpopProof(key, { htu, payload: { iat: Math.floor(Date.now() / 1000) - 3600 } }),
        await dpopProof(key, { htu, payload: { jti: undefined } }),
        await dpopProof(key, { htu, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }),
        await dpopProof(key, { htu, header: { jwk: (await walletKey()).publicJwk } }),
        'not-a-jwt',
      ];
      for (const proof of bad) {
        const offer = await newOffer();
        const answer = await postToken(
          'acme',
          { grant_type: preAuthorizedGrant, 'pre-authorized_code': offer.preAuthorizedCode },
          { DPoP: proof },
        );
        expectError(answer, 400, 'invalid_dpop_proof');
        expect((await offerRow(suite.service.dataSource, offer.id)).status).toBe('offered');
      }
    });

    it('the second of two concurrent uses of one code', async () => {
      const offer = await newOffer();
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': offer.preAuthorizedCode,
      };
      const answers = await Promise.all([postToken('acme', grant), postToken('acme', grant)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const events = await suite.service.dataSource.query(
        `SELECT 1 FROM webhook_event WHERE type = 'oid4vci.offer.accepted' AND body::jsonb->'data'->>'offerId' = $1`,
        [offer.id],
      );
      expect(events).toHaveLength(1);
    });
  });

  describe('at the nonce endpoint', () => {
    it('an unknown tenant (404) and a bad tenant id (400)', async () => {
      const unknown = await call(suite.service.url, path('nobody', 'nonce'), { method: 'POST' });
      expect(unknown.status).toBe(404);
      const bad = await call(suite.service.url, path('-bad', 'nonce'), { method: 'POST' });
      expect(bad.status).toBe(400);
    });
  });

  describe('at the notification endpoint', () => {
    async function issuedOffer(): Promise<{ token: string; notificationId: string }> {
      const { token } = await accessToken();
      const answer = await postCredential(token, requestOf(await proofsOf([await walletKey()])));
      expect(answer.status).toBe(200);
      return {
        token,
        notificationId: (answer.body as { notification_id: string }).notification_id,
      };
    }
    const notify = (token: string | undefined, body: unknown, tenantId = 'acme') =>
      call(suite.service.url, path(tenantId, 'notification'), {
        method: 'POST',
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        body,
      });

    it('a token of an offer not issued, none, another tenant’s path', async () => {
      const { token } = await accessToken();
      expectError(
        await notify(token, { notification_id: 'x', event: 'credential_accepted' }),
        401,
        'invalid_token',
      );
      const done = await issuedOffer();
      const body = { notification_id: done.notificationId, event: 'credential_accepted' };
      expectError(await notify(undefined, body), 401, 'invalid_token');
      expectError(await notify(done.token, body, 'other'), 401, 'invalid_token');
    });

    it('an unknown notification id, a bad event or description, a body that is no object', async () => {
      const { token, notificationId } = await issuedOffer();
      expectError(
        await notify(token, { notification_id: 'nope', event: 'credential_accepted' }),
        400,
        'invalid_notification_id',
      );
      expectError(
        await notify(token, { notification_id: notificationId, event: 'credential_lost' }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, { notification_id: notificationId }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, { event: 'credential_accepted' }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, {
          notification_id: notificationId,
          event: 'credential_failure',
          event_description: 'ä',
        }),
        400,
        'invalid_notification_request',
      );
      expectError(await notify(token, '[1]'), 400, 'invalid_notification_request');
      const ok = await notify(token, {
        notification_id: notificationId,
        event: 'credential_failure',
        event_description: 'Could not store',
      });
      expect(ok.status).toBe(204);
    });

    it('after the token expired', async () => {
      const { token, notificationId } = await issuedOffer();
      suite.offset = 301_000;
      expectError(
        await notify(token, { notification_id: notificationId, event: 'credential_accepted' }),
        401,
        'invalid_token',
      );
    });
  });
});

describe('OpenID4VCI wallet endpoints are rate-limited by address', () => {
  it('answers 429 past the limit', async () => {
    const service = await startTestService({ env: { RATE_LIMIT_IP_PER_MINUTE: '3' } });
    try {
      // No tenant is needed: the limit comes before the tenant is looked at.
      const statuses: number[] = [];
      for (const endpoint of ['nonce', 'token', 'credential', 'notification', 'nonce']) {
        const answer = await call(service.url, `/ctrl/oid4vci/acme/${endpoint}`, {
          method: 'POST',
        });
        statuses.push(answer.status);
      }
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(statuses.slice(0, 3).every((status) => status < 429)).toBe(true);
    } finally {
      await service.close();
    }
  });
});
