import { now, oauthError, page, setup } from '../../../test/support/authorization-flow.js';

describe('the pushed request and the authorize step', () => {
  describe('PAR refuses', () => {
    it.each([
      ['no PKCE', { code_challenge: '' }, 'invalid_request'],
      ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['another response_type', { response_type: 'token' }, 'invalid_request'],
      ['a javascript: redirect URI', { redirect_uri: 'javascript:alert(1)' }, 'invalid_request'],
      [
        'a plain http redirect URI',
        { redirect_uri: 'http://wallet.example/cb' },
        'invalid_request',
      ],
      ['an unknown issuer_state', { issuer_state: 'x'.repeat(43) }, 'invalid_request'],
      ['another credential than the offer’s', { scope: 'Other' }, 'invalid_request'],
      ['a request object', { request: 'eyJ...' }, 'invalid_request'],
      ['another resource', { resource: 'https://elsewhere.example' }, 'invalid_target'],
    ])('%s', async (_case, form, error) => {
      await expect(setup().par(form)).rejects.toEqual(oauthError(error));
    });

    it('a client attestation the default cannot verify', async () => {
      await expect(setup().par({}, 'eyJ.attestation')).rejects.toEqual(
        oauthError('invalid_client'),
      );
    });

    it('an unknown configuration asked for without an offer', async () => {
      await expect(
        setup().par({ issuer_state: undefined as never, scope: 'Other' }),
      ).rejects.toEqual(oauthError('invalid_scope'));
    });

    it('wallet-initiated issuance of a configuration with claims not from the login', async () => {
      const flow = setup();
      await expect(
        flow.par({ issuer_state: undefined as never, scope: 'Partial' }),
      ).rejects.toEqual(oauthError('invalid_scope'));
    });

    it('but takes wallet-initiated issuance of a configuration whose claims all come from the login', async () => {
      const answer = await setup().par({ issuer_state: undefined as never, scope: 'Badge' });
      expect(answer.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    });
  });

  describe('authorize refuses with a page', () => {
    it('a request that was not pushed', async () => {
      await expect(setup().authorize(undefined)).rejects.toEqual(page);
    });

    it('an unknown request_uri', async () => {
      const unknown = `urn:ietf:params:oauth:request_uri:${'a'.repeat(43)}`;
      await expect(setup().authorize(unknown)).rejects.toEqual(page);
    });

    it('an expired request_uri', async () => {
      const flow = setup();
      const { request_uri: requestUri } = await flow.par();
      flow.authorizations.rows[0].expiresAt = new Date(now);
      await expect(flow.authorize(requestUri)).rejects.toEqual(page);
    });

    it('a request_uri used twice', async () => {
      const flow = setup();
      const { request_uri: requestUri } = await flow.par();
      await flow.authorize(requestUri);
      await expect(flow.authorize(requestUri)).rejects.toEqual(page);
    });

    it('another client’s request_uri', async () => {
      const flow = setup();
      const { request_uri: requestUri } = await flow.par();
      await expect(flow.authorize(requestUri, 'other-wallet')).rejects.toEqual(page);
    });
  });
});
