import { setGlobalConfig as setOauth2Config } from '@openid4vc/oauth2';
import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import {
  authorizeWallet,
  browserFlow,
  codeFlowKeys,
  erika,
  issueByCode,
  oauthError,
  personConfiguration as person,
  type CodeFlow,
  type CodeFlowStart,
} from './support/authorization-code-wallet.js';
import { oidcPath } from './support/browser.js';
import {
  maxClaims,
  pkcePair,
  startOidcProvider,
  type RunningProvider,
} from './support/login-providers.js';
import { independentVerifier } from './support/oid4vci-holder.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * The authorization code flow (OpenID4VCI 1.0 §5, §6) with the real person login, over HTTP and
 * PostgreSQL: OWF's wallet library, the browser's hops by HTTP through the tenant's login provider (the
 * bundled realm with Erika; panva's oidc-provider on loopback), the SD-JWT VC verified by
 * @sd-jwt/sd-jwt-vc; and the refusals that need a real login.
 */
describe('OpenID4VCI authorization code flow with the real login', () => {
  let service: TestService;
  let independent: RunningProvider;
  const issuer = (tenant: string) => `${service.publicBaseUrl}/ctrl/oid4vci/${tenant}`;

  beforeAll(async () => {
    setOauth2Config({ allowInsecureUrls: true });
    setOid4vciConfig({ allowInsecureUrls: true });
    // The independent provider is on loopback over http, which production would refuse.
    service = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    const client = service.client();
    await client.createTenant({ id: 'univ', label: 'University of Examples' });
    await client.createTenant({ id: 'acme', label: 'Acme' });
    await client.createCredentialConfiguration('univ', person('Person'));
    await client.createCredentialConfiguration('acme', person('Member'));
    independent = await startOidcProvider(
      {
        clientId: 'acme-issuance',
        clientSecret: 'acme-secret-4711',
        redirectUri: `${issuer('acme')}/login/callback`,
      },
      // An account whose login gives no given_name, which Member requires.
      { nameless: { family_name: 'Nobody', email: 'nobody@login.example' } },
    );
    await client.setLoginProvider('acme', {
      issuer: independent.issuer,
      clientId: 'acme-issuance',
      clientSecret: 'acme-secret-4711',
    });
  });
  afterAll(async () => {
    setOauth2Config({ allowInsecureUrls: false });
    setOid4vciConfig({ allowInsecureUrls: false });
    await service.close();
    await independent.close();
  });

  const flow = (tenant: string, loginAt: string, username: string, password: string) =>
    browserFlow(issuer(tenant), loginAt, username, password);
  const asErika = () => flow('univ', `${service.publicBaseUrl}${oidcPath}/auth?`, 'erika', 'erika');
  const atAcme = (username: string) => flow('acme', `${independent.issuer}/`, username, 'any');

  const offer = (tenant: string, configurationId: string, subject?: string) =>
    service.client().createOffer(tenant, {
      credentialConfigurationId: configurationId,
      grant: 'authorization_code',
      claims: {},
      ...(subject === undefined ? {} : { subject }),
    });
  /** The tenant's issuance records, newest first (each tenant here has far fewer than 100). */
  const records = async (tenant: string) =>
    (await service.client().listCredentials(tenant, { size: 100 })).content;
  const offerStatus = async (tenant: string, id: string) =>
    (await service.client().getOffer(tenant, id)).status;

  /** Issues through `flow`, verifies the SD-JWT VC independently: its verified payload and record. */
  async function receive(by: CodeFlow, start: CodeFlowStart, tenant: string) {
    const before = (await records(tenant)).length;
    const keys = await codeFlowKeys();
    const issued = await issueByCode(by, start, keys);
    if (issued.credential === undefined) throw new Error(`refused: ${String(issued.error)}`);
    const { payload } = await independentVerifier().verify(issued.credential);
    expect(payload.iss).toBe(issuer(tenant));
    expect(payload.cnf).toEqual({ jwk: expect.objectContaining({ x: keys.holder.publicJwk.x }) });
    const after = await records(tenant);
    expect(after.length).toBe(before + 1);
    return { issued, payload, record: after[0] };
  }

  /** Why the flow denied the person `offerId` (its `oid4vci.authorization.denied` events). */
  const denials = async (offerId: string) =>
    (
      await service.dataSource.query<{ body: string }[]>(
        `SELECT body FROM webhook_event WHERE type = 'oid4vci.authorization.denied'`,
      )
    )
      .map((event) => (JSON.parse(event.body) as { data: Record<string, unknown> }).data)
      .filter((data) => data.offerId === offerId)
      .map((data) => data.reason);

  describe('at the bundled realm, as Erika', () => {
    it('issues from an offer pinned to her, with her claims from the realm', async () => {
      const made = await offer('univ', 'Person', 'erika');
      const { payload, record } = await receive(
        asErika(),
        { link: made.credentialOfferUri, state: 'wallet-state-1' },
        'univ',
      );
      expect(payload).toMatchObject({ vct: person('Person').vct, ...erika });
      expect(record).toMatchObject({ offerId: made.id, configurationId: 'Person' });
      expect(await service.client().getOffer('univ', made.id)).toMatchObject({
        status: 'issued',
        credentialIds: [record.id],
      });
    });

    it('issues wallet-initiated (no offer), with her claims from the realm', async () => {
      const { issued, payload, record } = await receive(
        asErika(),
        { configurationId: 'Person', state: 'wallet-state-2' },
        'univ',
      );
      expect(issued.token.authorization_details).toEqual([
        expect.objectContaining({ credential_configuration_id: 'Person' }),
      ]);
      expect(payload).toMatchObject(erika);
      expect(record).toMatchObject({ configurationId: 'Person' });
    });

    it('refuses her an offer pinned to another person: access_denied, nothing issued', async () => {
      const made = await offer('univ', 'Person', 'max');
      const before = (await records('univ')).length;
      const outcome = await issueByCode(
        asErika(),
        { link: made.credentialOfferUri },
        await codeFlowKeys(),
      );
      expect(outcome).toEqual({ error: 'access_denied' });
      expect((await records('univ')).length).toBe(before);
      expect(await offerStatus('univ', made.id)).toBe('offered');
      expect(await denials(made.id)).toEqual(['subject_mismatch']);
    });

    it('refuses the code a second time: invalid_grant, nothing more issued', async () => {
      const made = await offer('univ', 'Person');
      const { issued } = await receive(asErika(), { link: made.credentialOfferUri }, 'univ');
      const after = (await records('univ')).length;
      expect(await oauthError(issued.redeem(issued.code))).toBe('invalid_grant');
      expect((await records('univ')).length).toBe(after);
      expect(await service.client().getOffer('univ', made.id)).toMatchObject({
        status: 'issued',
        credentialIds: [expect.any(String)],
      });
    });

    it('refuses the code with another PKCE verifier: invalid_grant, nothing issued', async () => {
      const made = await offer('univ', 'Person');
      const before = (await records('univ')).length;
      const authorized = await authorizeWallet(
        asErika(),
        { link: made.credentialOfferUri },
        await codeFlowKeys(),
      );
      const code = authorized.back.searchParams.get('code')!;
      expect(await oauthError(authorized.redeem(code, pkcePair().verifier))).toBe('invalid_grant');
      expect((await records('univ')).length).toBe(before);
      expect(await offerStatus('univ', made.id)).toBe('offered');
    });
  });

  describe('at an independent provider (panva’s oidc-provider)', () => {
    it('issues from an offer with the account’s claims', async () => {
      const made = await offer('acme', 'Member', 'max');
      const { payload, record } = await receive(
        atAcme('max'),
        { link: made.credentialOfferUri },
        'acme',
      );
      const { given_name, family_name, birthdate, email } = maxClaims;
      expect(payload).toMatchObject({ given_name, family_name, birthdate, email });
      expect(record).toMatchObject({ offerId: made.id, configurationId: 'Member' });
      expect(await offerStatus('acme', made.id)).toBe('issued');
    });

    it('issues wallet-initiated with the account’s claims', async () => {
      const { payload } = await receive(atAcme('max'), { configurationId: 'Member' }, 'acme');
      expect(payload).toMatchObject({ given_name: 'Max', family_name: 'Mustermann' });
    });

    it('refuses a login without a claim the configuration requires: access_denied', async () => {
      const made = await offer('acme', 'Member');
      const before = (await records('acme')).length;
      const outcome = await issueByCode(
        atAcme('nameless'),
        { link: made.credentialOfferUri, state: 's-3' },
        await codeFlowKeys(),
      );
      expect(outcome).toEqual({ error: 'access_denied' });
      expect((await records('acme')).length).toBe(before);
      expect(await offerStatus('acme', made.id)).toBe('offered');
      expect(await denials(made.id)).toEqual(['missing_claims']);
    });
  });
});
