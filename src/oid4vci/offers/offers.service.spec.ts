import { type DomainException } from '../../common/problem/domain.exception.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { type Settings } from '../../config/settings.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { type TenantsService } from '../../tenants/tenants.service.js';
import { type CredentialConfigurationsService } from '../credential-configurations.service.js';
import { type CredentialConfigurationDto } from '../dto/credential-configuration-answer.dto.js';
import { offerClaimsPurpose } from './offer-claims.js';
import { offerLimits } from './offer-limits.js';
import { type NewOffer, type OfferRepository } from './offer.repository.js';
import { OffersService } from './offers.service.js';
import { codeOf } from '../../../test/support/service-fakes.js';

/** The create rule without a database: the repository records its calls. */
describe(OffersService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const claims = { given_name: 'Erika', birthdate: '1990-01-01' };
  const vault = new KeyVault(randomBytes(32));
  let steps: string[];
  let open: number;
  let inserted: NewOffer[];
  let refusal: pg.DatabaseError | undefined;
  let audited: string[];
  let service: OffersService;

  const configuration = {
    id: 'Badge',
    format: 'dc+sd-jwt',
    vct: 'https://acme.example/badge',
    credentialDefinition: null,
    claims: [],
    display: [],
    selectivelyDisclosable: [],
    expiresInSeconds: null,
    revocable: true,
    signingAlgorithm: 'ES256',
    cryptosuite: null,
    claimsFromLogin: null,
  } as unknown as CredentialConfigurationDto;
  /** given_name from the login, mandatory; employee_id from the offer. */
  const fromLogin = {
    ...configuration,
    id: 'Login',
    claims: [{ path: ['given_name'], mandatory: true }, { path: ['employee_id'] }],
    claimsFromLogin: { given_name: 'given_name' },
  } as unknown as CredentialConfigurationDto;
  const repository = {
    // The statement's rule: inserted only below the cap.
    insertWithinCap: (offer: NewOffer, cap: number) => {
      steps.push('insert within cap');
      if (refusal !== undefined) return Promise.reject(refusal);
      if (open >= cap) return Promise.resolve(false);
      inserted.push(offer);
      return Promise.resolve(true);
    },
  } as unknown as OfferRepository;

  beforeEach(() => {
    steps = [];
    open = 0;
    inserted = [];
    refusal = undefined;
    audited = [];
    service = new OffersService(
      {
        transaction: (run: (manager: EntityManager) => Promise<unknown>) => {
          steps.push('begin');
          return run({} as EntityManager);
        },
      } as unknown as DataSource,
      () => Date.parse('2026-01-01T00:00:00Z'),
      vault,
      { PUBLIC_BASE_URL: 'https://agent.example' } as Settings,
      { record: (action: string) => audited.push(action) } as unknown as AuditLog,
      repository,
      {
        get: (_tenantId: string, id: string) =>
          Promise.resolve(id === 'Login' ? fromLogin : configuration),
      } as unknown as CredentialConfigurationsService,
      {
        requireTenant: (_tenantId: string, options?: { lock?: boolean }) => {
          if (options?.lock === true) steps.push('tenant row locked');
          return Promise.resolve();
        },
      } as unknown as TenantsService,
    );
  });

  const create = () =>
    service.create('acme', { credentialConfigurationId: 'Badge', claims }, actor);

  it('inserts within the cap in one statement, without a transaction or the tenant row locked', async () => {
    const created = await create();
    expect(steps).toEqual(['insert within cap']);
    expect(created).toMatchObject({ status: 'offered' });
    expect(audited).toEqual(['oid4vci.offer.create']);
  });

  it('stores the claims sealed for the offer, never in the clear', async () => {
    const created = await create();
    const [offer] = inserted;
    expect(JSON.stringify(offer)).not.toContain('Erika');
    expect(offer).not.toHaveProperty('claims');
    expect(offer.claimsMasterKeyId).toBe(vault.masterKeyId);
    const opened = vault.open(created.id, offer.claimsSealed!, offerClaimsPurpose);
    expect(JSON.parse(opened.toString('utf8'))).toEqual(claims);
  });

  it('refuses the offer past the cap, and inserts nothing', async () => {
    open = offerLimits.openPerTenant;
    expect(await codeOf(create())).toBe('OFFERS_LIMIT_REACHED');
    expect(steps).toEqual(['insert within cap']);
    expect(inserted).toEqual([]);
    expect(audited).toEqual([]);
  });

  it('answers 404 when the tenant was deleted since it was checked (its foreign key refused)', async () => {
    refusal = new pg.DatabaseError('refused by the server', 0, 'error');
    refusal.code = '23503';
    expect(await codeOf(create())).toBe('TENANT_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  describe('an authorization_code offer', () => {
    const login = (input: Record<string, unknown>) =>
      service.create(
        'acme',
        { credentialConfigurationId: 'Login', grant: 'authorization_code', claims: {}, ...input },
        actor,
      );

    it('carries issuer_state, pins its subject, and leaves the login’s claims to the login', async () => {
      const created = await login({ subject: 'erika', claims: { employee_id: 'E-1' } });
      const grants = created.credentialOffer.grants as Record<string, { issuer_state?: string }>;
      expect(Object.keys(grants)).toEqual(['authorization_code']);
      expect(grants.authorization_code.issuer_state).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(inserted[0]).toMatchObject({ grantType: 'authorization_code', subject: 'erika' });
      expect(created.txCode).toBeUndefined();
    });

    it.each([
      ['a transaction code', { txCode: true }, 'txCode'],
      ['a configuration without claimsFromLogin', { credentialConfigurationId: 'Badge' }, 'grant'],
      [
        'a claim the configuration does not describe',
        { claims: { nickname: 'E' } },
        'claims.nickname',
      ],
    ])('refuses %s', async (_case, input, field) => {
      const error = await login(input).catch((thrown: unknown) => thrown);
      expect((error as DomainException).errors?.map((entry) => entry.field)).toEqual([field]);
      expect(inserted).toEqual([]);
    });

    it('is the only offer that takes a subject', async () => {
      const error = await service
        .create('acme', { credentialConfigurationId: 'Badge', claims, subject: 'erika' }, actor)
        .catch((thrown: unknown) => thrown);
      expect((error as DomainException).errors?.map((entry) => entry.field)).toEqual(['subject']);
    });
  });
});
