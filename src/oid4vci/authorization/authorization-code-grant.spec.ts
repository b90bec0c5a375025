import { randomBytes } from 'node:crypto';
import { OAuthError } from '../../common/oauth-error.js';
import { now, oauthError, setup } from '../../../test/support/authorization-flow.js';

describe('the authorization code grant', () => {
  it('answers credential_identifiers when asked by authorization_details', async () => {
    const flow = setup();
    const details = JSON.stringify([
      { type: 'openid_credential', credential_configuration_id: 'Badge' },
    ]);
    const back = await flow.toCallback({ authorization_details: details });
    const answer = await flow.token({ code: back.searchParams.get('code')! });
    expect(answer.authorization_details).toEqual([
      {
        type: 'openid_credential',
        credential_configuration_id: 'Badge',
        credential_identifiers: ['Badge'],
      },
    ]);
  });

  describe('the token endpoint answers invalid_grant', () => {
    const codeOf = async (flow: ReturnType<typeof setup>) =>
      (await flow.toCallback()).searchParams.get('code')!;

    it('for a wrong PKCE verifier', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      await expect(flow.token({ code, code_verifier: 'w'.repeat(43) })).rejects.toEqual(
        oauthError('invalid_grant'),
      );
      expect(flow.accepted).toEqual([]);
    });

    it('for a code used twice, nothing issued the second time', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      await flow.token({ code });
      await expect(flow.token({ code })).rejects.toEqual(oauthError('invalid_grant'));
      expect(flow.accepted).toEqual([flow.offer.id]);
    });

    it('for a code used twice at once: exactly one wins', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      const outcomes = await Promise.allSettled([flow.token({ code }), flow.token({ code })]);
      expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(flow.accepted).toEqual([flow.offer.id]);
    });

    it('for another tenant’s code', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      await expect(flow.token({ code }, 'other')).rejects.toEqual(oauthError('invalid_grant'));
    });

    it('for another redirect_uri', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      await expect(flow.token({ code, redirect_uri: 'https://evil.example/cb' })).rejects.toEqual(
        oauthError('invalid_grant'),
      );
    });

    it('for another client_id', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      await expect(flow.token({ code, client_id: 'other-wallet' })).rejects.toEqual(
        oauthError('invalid_grant'),
      );
    });

    it('for a code bound by dpop_jkt, redeemed without that key (invalid_dpop_proof)', async () => {
      const flow = setup();
      const jkt = randomBytes(32).toString('base64url');
      const code = (await flow.toCallback({ dpop_jkt: jkt })).searchParams.get('code')!;
      await expect(flow.token({ code }, 'acme', 'x'.repeat(43))).rejects.toEqual(
        oauthError('invalid_dpop_proof'),
      );
      const again = (await flow.toCallback({ dpop_jkt: jkt })).searchParams.get('code')!;
      expect(await flow.token({ code: again }, 'acme', jkt)).toMatchObject({ token_type: 'DPoP' });
    });

    it('for an expired code', async () => {
      const flow = setup();
      const code = await codeOf(flow);
      flow.authorizations.rows[0].expiresAt = new Date(now);
      await expect(flow.token({ code })).rejects.toEqual(oauthError('invalid_grant'));
    });
  });

  it('refuses with OAuth errors only (no 5xx) for a missing verifier', async () => {
    const flow = setup();
    await expect(
      flow.token({ code: 'x', code_verifier: undefined as never }),
    ).rejects.toBeInstanceOf(OAuthError);
  });
});
