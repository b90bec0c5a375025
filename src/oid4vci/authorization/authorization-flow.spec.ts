import { createHash, randomBytes } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { OAuthError } from '../../common/oauth-error.js';
import { type EventOutbox, type DomainEvent } from '../../events/event-outbox.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';
import { configurationNotFound } from '../credential-configuration.errors.js';
import { type CredentialConfigurationsService } from '../credential-configurations.service.js';
import { type CredentialConfigurationDto } from '../dto/credential-configuration-answer.dto.js';
import { sealClaims } from '../offers/offer-claims.js';
import {
  type AuthorizationOffer,
  type OfferGrantsService,
} from '../offers/offer-grants.service.js';
import { type OffersService } from '../offers/offers.service.js';
import { secretHash } from '../offers/offer-secrets.js';
import { AuthorizationCodeGrantService } from './authorization-code-grant.js';
import { AuthorizationPageError } from './authorization-outcome.js';
import {
  type Authorization,
  type AuthorizationRepository,
  type CodeIssued,
  type LoginStarted,
  type PushedAuthorization,
} from './authorization.repository.js';
import { AuthorizationService } from './authorization.service.js';
import { PublicClientAuthentication } from './client-authentication.js';
import { LoginCallbackService } from './login-callback.service.js';
import { type PersonLogin, type PersonLoginStart } from './person-login.js';

type Row = Authorization & {
  state: string;
  requestUriHash: Buffer;
  loginStateHash: Buffer | null;
  codeHash: Buffer | null;
};

/** The repository's single-use steps, in memory: each moves a row only from the state it must be in. */
class FakeAuthorizations {
  rows: Row[] = [];
  now = () => Date.now();

  insertPushed(row: PushedAuthorization) {
    this.rows.push({
      ...row,
      state: 'pushed',
      loginStateHash: null,
      codeHash: null,
      loginSealed: null,
      loginMasterKeyId: null,
      claimsSealed: null,
      claimsMasterKeyId: null,
    });
    return Promise.resolve();
  }

  private take(match: (row: Row) => boolean, change: Partial<Row>, now: Date) {
    const row = this.rows.find((candidate) => match(candidate) && candidate.expiresAt > now);
    if (row !== undefined) Object.assign(row, change);
    return Promise.resolve(row === undefined ? undefined : { ...row });
  }

  startLogin(tenantId: string, hash: Buffer, clientId: string, login: LoginStarted, now: Date) {
    return this.take(
      (row) =>
        row.requestUriHash.equals(hash) &&
        row.tenantId === tenantId &&
        row.clientId === clientId &&
        row.state === 'pushed',
      { state: 'login', ...login },
      now,
    );
  }

  takeLogin(tenantId: string, hash: Buffer, now: Date) {
    return this.take(
      (row) =>
        row.loginStateHash?.equals(hash) === true &&
        row.tenantId === tenantId &&
        row.state === 'login',
      { state: 'finishing' },
      now,
    );
  }

  async issueCode(id: string, code: CodeIssued) {
    const row = await this.take(
      (candidate) => candidate.id === id && candidate.state === 'finishing',
      { state: 'code', ...code },
      new Date(0),
    );
    return row !== undefined;
  }

  denyStatement(id: string) {
    return { sql: 'deny', parameters: [id] };
  }

  redeem(tenantId: string, hash: Buffer, now: Date) {
    return this.take(
      (row) =>
        row.codeHash?.equals(hash) === true && row.tenantId === tenantId && row.state === 'code',
      { state: 'redeemed' },
      now,
    );
  }
}

const now = Date.parse('2026-11-29T10:00:00Z');
const issuer = 'https://agent.example/ctrl/oid4vci/acme';
const redirectUri = 'https://wallet.example/cb';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

const definition: ConfigurationDefinition = {
  format: 'dc+sd-jwt',
  vct: 'https://acme.example/badge',
  credentialDefinition: null,
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['employee_id'], mandatory: true },
  ],
  display: [],
  selectivelyDisclosable: null,
  expiresInSeconds: null,
  revocable: true,
  signingAlgorithm: 'ES256',
  cryptosuite: null,
  claimsFromLogin: { given_name: 'given_name', employee_id: 'preferred_username' },
};

function setup(options: { subject?: string | null; login?: Record<string, unknown> } = {}) {
  const vault = new KeyVault(randomBytes(32));
  const authorizations = new FakeAuthorizations();
  const events: DomainEvent[] = [];
  const accepted: string[] = [];
  const offer: AuthorizationOffer = {
    id: '0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f',
    status: 'offered',
    configurationId: 'Badge',
    configuration: definition,
    expiresAt: new Date(now + 600_000),
    subject: options.subject ?? null,
    claimsSealed: null,
    claimsMasterKeyId: null,
  };
  offer.claimsSealed = sealClaims(vault, offer.id, {});
  offer.claimsMasterKeyId = vault.masterKeyId;
  const issuerState = randomBytes(32).toString('base64url');
  const offers = {
    findByIssuerState: (tenantId: string, hash: Buffer) =>
      Promise.resolve(
        tenantId === 'acme' && hash.equals(secretHash(issuerState)) ? offer : undefined,
      ),
    findById: (tenantId: string, id: string) =>
      Promise.resolve(tenantId === 'acme' && id === offer.id ? offer : undefined),
    acceptWithClaimsStatement: (id: string) => ({ sql: 'accept', parameters: [id] }),
  } as unknown as OfferGrantsService;
  const outbox = {
    withChange: (
      _runner: unknown,
      change: { sql: string; parameters: unknown[] },
      event: DomainEvent,
    ) => {
      if (change.sql === 'deny') {
        const row = authorizations.rows.find((candidate) => candidate.id === change.parameters[0]);
        if (row?.state !== 'finishing') return Promise.resolve([]);
        row.state = 'denied';
      } else {
        if (accepted.includes(change.parameters[0] as string)) return Promise.resolve([]);
        accepted.push(change.parameters[0] as string);
      }
      events.push(event);
      return Promise.resolve([{ id: change.parameters[0] }]);
    },
  } as unknown as EventOutbox;
  const partial = { ...definition, claimsFromLogin: { given_name: 'given_name' } };
  const configurations = {
    get: (_tenantId: string, id: string) =>
      id === 'Badge' || id === 'Partial'
        ? Promise.resolve({
            id,
            ...(id === 'Badge' ? definition : partial),
          } as unknown as CredentialConfigurationDto)
        : Promise.reject(configurationNotFound(id)),
  } as unknown as CredentialConfigurationsService;
  const started: PersonLoginStart[] = [];
  const login: PersonLogin = {
    start: (_tenantId, start) => {
      started.push(start);
      return Promise.resolve(`https://login.example/authorize?state=${start.state}`);
    },
    finish: (_tenantId, finish) =>
      createHash('sha256').update(finish.codeVerifier).digest('base64url') ===
      started.at(-1)?.codeChallenge
        ? Promise.resolve(options.login ?? { preferred_username: 'erika', given_name: 'Erika' })
        : Promise.reject(new Error('wrong verifier')),
  };
  const clock = () => now;
  const clients = new PublicClientAuthentication();
  const repository = authorizations as unknown as AuthorizationRepository;
  const service = new AuthorizationService(
    repository,
    offers,
    configurations,
    vault,
    login,
    clients,
    clock,
  );
  const callbacks = new LoginCallbackService(
    {} as DataSource,
    repository,
    offers,
    {} as OffersService,
    configurations,
    outbox,
    vault,
    login,
    clock,
  );
  const grant = new AuthorizationCodeGrantService(
    {} as DataSource,
    repository,
    offers,
    outbox,
    clients,
  );

  const parForm = (form: Record<string, string> = {}) => ({
    response_type: 'code',
    client_id: 'wallet',
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'wallet-state',
    issuer_state: issuerState,
    ...form,
  });
  const par = (form: Record<string, string> = {}, attestation?: string) =>
    service.par({
      tenantId: 'acme',
      issuer,
      form: parForm(form),
      dpop: undefined,
      attestation,
      pop: undefined,
    });
  const authorize = (requestUri: unknown, clientId: unknown = 'wallet') =>
    service.authorize('acme', issuer, { clientId, requestUri });
  /** PAR, authorize, login: the wallet's redirect with the code or the error. */
  const toCallback = async (form: Record<string, string> = {}) => {
    const { request_uri: requestUri } = await par(form);
    const location = new URL(await authorize(requestUri));
    return new URL(
      await callbacks.callback('acme', issuer, {
        code: 'login-code',
        state: location.searchParams.get('state'),
        error: undefined,
      }),
    );
  };
  const token = (form: Record<string, string>, tenantId = 'acme', dpopJkt?: string) =>
    grant.token(
      {
        tenantId,
        form: {
          grant_type: 'authorization_code',
          redirect_uri: redirectUri,
          client_id: 'wallet',
          code_verifier: verifier,
          ...form,
        },
        dpop: undefined,
        url: `${issuer}/token`,
      },
      dpopJkt,
      now,
    );
  return { par, authorize, toCallback, token, callbacks, authorizations, events, accepted, offer };
}

const oauthError = (error: string) => expect.objectContaining({ error }) as unknown;
const page = expect.any(AuthorizationPageError) as unknown;

describe('the authorization code flow', () => {
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
