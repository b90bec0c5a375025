import { issuer, page, setup } from '../../../test/support/authorization-flow.js';

describe('the login callback', () => {
  it('answers the code with state and iss, and the token once for it', async () => {
    const flow = setup();
    const back = await flow.toCallback();
    expect(back.searchParams.get('state')).toBe('wallet-state');
    expect(back.searchParams.get('iss')).toBe(issuer);
    const answer = await flow.token({ code: back.searchParams.get('code')! });
    expect(answer).toMatchObject({ token_type: 'Bearer', expires_in: 300 });
    expect(answer.authorization_details).toBeUndefined();
    expect(flow.accepted).toEqual([flow.offer.id]);
  });

  describe('the callback answers access_denied, no code', () => {
    it('for another person than the offer pins, with an event', async () => {
      const flow = setup({ subject: 'max' });
      const back = await flow.toCallback();
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.has('code')).toBe(false);
      expect(flow.events).toEqual([
        expect.objectContaining({
          type: 'oid4vci.authorization.denied',
          data: { offerId: flow.offer.id, configurationId: 'Badge', reason: 'subject_mismatch' },
        }),
      ]);
    });

    it('for a login that lacks a required claim, naming it but no value', async () => {
      const flow = setup({ login: { sub: 'u-1', given_name: 'Erika' } });
      const back = await flow.toCallback();
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('error_description')).toMatch(/employee_id/);
      expect(back.searchParams.get('error_description')).not.toMatch(/Erika/);
      expect(flow.events[0].data.reason).toBe('missing_claims');
    });

    it('when the login provider sends the browser back with an error, and the state is then spent', async () => {
      const flow = setup();
      const { request_uri: requestUri } = await flow.par();
      const state = new URL(await flow.authorize(requestUri)).searchParams.get('state');
      const back = new URL(
        await flow.callbacks.callback('acme', issuer, { code: undefined, state, error: 'denied' }),
      );
      expect(back.searchParams.get('error')).toBe('access_denied');
      expect(back.searchParams.get('iss')).toBe(issuer);
      await expect(
        flow.callbacks.callback('acme', issuer, { code: 'c', state, error: undefined }),
      ).rejects.toEqual(page);
    });

    it('for another tenant’s login state, a page', async () => {
      const flow = setup();
      const { request_uri: requestUri } = await flow.par();
      const state = new URL(await flow.authorize(requestUri)).searchParams.get('state');
      await expect(
        flow.callbacks.callback('other', issuer, { code: 'c', state, error: undefined }),
      ).rejects.toEqual(page);
    });

    it('accepts the pinned person by sub', async () => {
      const flow = setup({
        subject: 'u-7',
        login: { sub: 'u-7', preferred_username: 'E-7', given_name: 'Erika' },
      });
      expect((await flow.toCallback()).searchParams.has('code')).toBe(true);
    });

    it('and an unknown login state is a page', async () => {
      const flow = setup();
      await expect(
        flow.callbacks.callback('acme', issuer, { code: 'c', state: 'guess', error: undefined }),
      ).rejects.toEqual(page);
    });
  });
});
