import { createHash, randomBytes } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type EventOutbox, type DomainEvent } from '../../src/events/event-outbox.js';
import { KeyVault } from '../../src/secrets/key-vault.js';
import { type ConfigurationDefinition } from '../../src/oid4vci/credential-configuration.rules.js';
import { configurationNotFound } from '../../src/oid4vci/credential-configuration.errors.js';
import { type CredentialConfigurationsService } from '../../src/oid4vci/credential-configurations.service.js';
import { type CredentialConfigurationDto } from '../../src/oid4vci/dto/credential-configuration-answer.dto.js';
import { sealClaims } from '../../src/oid4vci/offers/offer-claims.js';
import {
  type AuthorizationOffer,
  type OfferGrantsService,
} from '../../src/oid4vci/offers/offer-grants.service.js';
import { type OffersService } from '../../src/oid4vci/offers/offers.service.js';
import { secretHash } from '../../src/oid4vci/offers/offer-secrets.js';
import { AuthorizationCodeGrantService } from '../../src/oid4vci/authorization/authorization-code-grant.js';
import { AuthorizationPageError } from '../../src/oid4vci/authorization/authorization-outcome.js';
import {
  type Authorization,
  type AuthorizationRepository,
  type CodeIssued,
  type LoginStarted,
  type PushedAuthorization,
} from '../../src/oid4vci/authorization/authorization.repository.js';
import { AuthorizationService } from '../../src/oid4vci/authorization/authorization.service.js';
import { type ClientAuthentication } from '../../src/oid4vci/authorization/client-authentication.js';
import { OAuthError } from '../../src/common/oauth-error.js';
import { LoginCallbackService } from '../../src/oid4vci/authorization/login-callback.service.js';
import {
  type PersonLogin,
  type PersonLoginStart,
} from '../../src/oid4vci/authorization/person-login.js';

/**
 * The authorization code flow's services (src/oid4vci/authorization/) over faked repositories, an offer,
 * a configuration and a login: what their unit specs share.
 */

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

export const now = Date.parse('2026-11-29T10:00:00Z');
export const issuer = 'https://agent.example/ctrl/oid4vci/acme';
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

export function setup(options: { subject?: string | null; login?: Record<string, unknown> } = {}) {
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
  // A tenant without wallet providers: public clients, and an attestation none can verify refused.
  const clients: ClientAuthentication = {
    authenticate: (_tenantId, request) =>
      request.attestation !== undefined || request.pop !== undefined
        ? Promise.reject(new OAuthError(401, 'invalid_client', 'No wallet provider is trusted.'))
        : Promise.resolve({ attested: false, clientId: request.clientId }),
  };
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
        issuer,
      },
      dpopJkt,
      now,
    );
  return { par, authorize, toCallback, token, callbacks, authorizations, events, accepted, offer };
}

export const oauthError = (error: string) => expect.objectContaining({ error }) as unknown;
export const page = expect.any(AuthorizationPageError) as unknown;
export type Flow = ReturnType<typeof setup>;
