import {
  call,
  postForm,
  startTestService,
  type ApiResponse,
  type TestService,
} from './test-service.js';
import { ldpBadge, sdJwtBadge } from './oid4vci-fixtures.js';
import { fakeHolderIssuance, insertOffer, type HolderIssuanceCall } from './oid4vci-offers.js';
import { dpopProof, keyProof, type WalletKey } from './oid4vci-wallet.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const claims = { given_name: 'Ada' };

/**
 * The service the wallet-error suites refuse things at (tenants `acme` and `other`, the badge
 * configurations, issuance faked and recorded in `issued`), its clock moved by `offset` ms until the
 * test ends, and the requests they share; registers its start and stop on the calling describe block.
 */
export function useWalletErrorsSuite() {
  let service!: TestService;
  const state = { issued: [] as HolderIssuanceCall[], offset: 0 };

  const issuerOf = (tenantId: string) => `${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}`;
  const path = (tenantId: string, endpoint: string) => `/ctrl/oid4vci/${tenantId}/${endpoint}`;

  beforeAll(async () => {
    service = await startTestService({ clock: () => Date.now() + state.offset });
    state.issued = fakeHolderIssuance(service);
    await service.client().createTenant({ id: 'acme', label: 'ACME Corp' });
    await service.client().createTenant({ id: 'other', label: 'Other' });
    await service.client().createCredentialConfiguration('acme', sdJwtBadge);
    await service.client().createCredentialConfiguration('acme', ldpBadge);
  });
  afterEach(() => {
    state.offset = 0;
  });
  afterAll(async () => {
    await service.close();
  });

  function expectError(response: ApiResponse, status: number, error: string): void {
    expect({ status: response.status, body: response.body }).toEqual({
      status,
      body: { error, error_description: expect.any(String) },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    if (status === 401)
      expect(response.headers.get('www-authenticate')).toMatch(
        new RegExp(`^(Bearer|DPoP) .*error="${error}"`),
      );
  }

  const postToken = (tenantId: string, fields: Record<string, string>, headers = {}) =>
    postForm(service.url, path(tenantId, 'token'), fields, headers);

  const newOffer = (options: { txCode?: string; expiresAt?: Date; ldp?: boolean } = {}) =>
    insertOffer(service, {
      tenantId: 'acme',
      configuration: options.ldp === true ? ldpBadge : sdJwtBadge,
      claims: options.ldp === true ? { name: 'Ada' } : claims,
      txCode: options.txCode,
      expiresAt: options.expiresAt,
    });

  /** An accepted offer's access token, DPoP-bound when a key is given. */
  async function accessToken(
    dpopKey?: WalletKey,
    ldp = false,
  ): Promise<{ token: string; offerId: string }> {
    const offer = await newOffer({ ldp });
    const headers =
      dpopKey === undefined
        ? {}
        : { DPoP: await dpopProof(dpopKey, { htu: `${issuerOf('acme')}/token` }) };
    const answer = await postToken(
      'acme',
      { grant_type: preAuthorizedGrant, 'pre-authorized_code': offer.preAuthorizedCode },
      headers,
    );
    expect(answer.status).toBe(200);
    return { token: (answer.body as { access_token: string }).access_token, offerId: offer.id };
  }

  async function nonce(tenantId = 'acme'): Promise<string> {
    const answer = await call<{ c_nonce: string }>(service.url, path(tenantId, 'nonce'), {
      method: 'POST',
    });
    expect(answer.status).toBe(200);
    return answer.body.c_nonce;
  }

  async function postCredential(
    token: string | undefined,
    body: unknown,
    options: { tenantId?: string; scheme?: string; dpop?: string; contentType?: string } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'application/json',
    };
    if (token !== undefined) headers.authorization = `${options.scheme ?? 'Bearer'} ${token}`;
    if (options.dpop !== undefined) headers.dpop = options.dpop;
    return call(service.url, path(options.tenantId ?? 'acme', 'credential'), {
      method: 'POST',
      headers,
      body,
    });
  }

  async function proofsOf(keys: WalletKey[], options: { nonce?: string; aud?: string } = {}) {
    const c = options.nonce ?? (await nonce());
    return Promise.all(
      keys.map((key) => keyProof(key, { aud: options.aud ?? issuerOf('acme'), nonce: c })),
    );
  }

  const requestOf = (proofs: string[], configurationId = sdJwtBadge.id): Json => ({
    credential_configuration_id: configurationId,
    proofs: { jwt: proofs },
  });

  return {
    get service(): TestService {
      return service;
    },
    /** What the faked issuance was asked for, in order. */
    get issued(): HolderIssuanceCall[] {
      return state.issued;
    },
    /** Milliseconds the service's clock runs ahead, until the test ends. */
    get offset(): number {
      return state.offset;
    },
    set offset(value: number) {
      state.offset = value;
    },
    issuerOf,
    path,
    expectError,
    postToken,
    newOffer,
    accessToken,
    nonce,
    postCredential,
    proofsOf,
    requestOf,
  };
}
