import createClient, { type Client } from 'openapi-fetch';
import { AgentApiError } from './agent-api-error.js';
import { type components, type paths } from './generated/schema.js';
import { TokenManager, type Credentials } from './token-manager.js';
import {
  type Certificate,
  type CertificatePage,
  type CertificateSigningRequestOptions,
  type CreatedOffer,
  type CreatedPresentationRequest,
  type DcApiResponse,
  type CreatedWebhook,
  type CredentialConfiguration,
  type CredentialConfigurationDefinition,
  type CredentialConfigurationPage,
  type CredentialStatusChange,
  type Did,
  type DidDocument,
  type DidDocumentQuery,
  type IssueCredentialRequest,
  type IssuedCredential,
  type IssuedCredentialPage,
  type ListCredentialConfigurationsQuery,
  type ListCredentialsQuery,
  type ListOffersQuery,
  type ListPresentationRequestsQuery,
  type ListTenantsQuery,
  type ListCertificatesQuery,
  type ListTrustAnchorsQuery,
  type ListWalletProvidersQuery,
  type LoginProvider,
  type ListTrustedIssuersQuery,
  type ListWebhooksQuery,
  type NewCredentialConfiguration,
  type NewLoginProvider,
  type NewOffer,
  type NewPresentationRequest,
  type NewTenant,
  type NewTrustAnchor,
  type NewWalletProvider,
  type NewTrustedIssuer,
  type NewWebhook,
  type Offer,
  type OfferPage,
  type OfferQrCodeFormat,
  type PresentationRequest,
  type PresentationRequestPage,
  type PresentationVerification,
  type RotatedWebhookSecret,
  type Tenant,
  type TenantChanges,
  type TenantPage,
  type TrustAnchor,
  type TrustAnchorPage,
  type WalletAttestationPolicy,
  type WalletProvider,
  type WalletProviderPage,
  type TrustedIssuer,
  type TrustedIssuerPage,
  type VerifiableCredential,
  type Verification,
  type VerifyCredentialOptions,
  type VerifyPresentationOptions,
  type Webhook,
  type WebhookChanges,
  type WebhookDeliveryPage,
  type WebhookPage,
} from './types.js';

export interface AgentClientOptions {
  /** The origin of the service, `https://agent.example.com` (nginx) or `http://localhost:8080`. */
  baseUrl: string;
  /** A realm user (password grant) or a confidential client (client credentials grant). */
  credentials: Credentials;
  /** Default: the realm's token endpoint on `baseUrl`, where nginx or the embedded issuer serves it. */
  tokenUrl?: string;
  /** Default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Milliseconds since the epoch, for token expiry; default `Date.now`. */
  now?: () => number;
}

/** The token endpoint of the realm on an origin (Keycloak's OpenID Connect path for the realm agent-cloud). */
export function tokenUrlOf(baseUrl: string): string {
  return new URL('/auth/realms/agent-cloud/protocol/openid-connect/token', baseUrl).toString();
}

const tenantHeader = 'x-tenant-id';

type Schemas = components['schemas'];

/** For the creates and issues that take an `Idempotency-Key` (docs/api.md, Retrying safely). */
export interface IdempotencyOptions {
  /** One key per intent (a random UUID): the same call with it again answers what the first did. */
  idempotencyKey?: string;
}

function keyHeader({ idempotencyKey }: IdempotencyOptions): Record<string, string> {
  return idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey };
}

type WebhookPath = Extract<keyof paths, `/ctrl/api/v1.0/webhooks${string}`>;

/**
 * A tenant's webhook route with its tenant header, or for `null` (agent-admin) the same operation on
 * the subscriptions to every tenant's events, whose requests and answers have the same shapes.
 */
function webhookRoute<Path extends WebhookPath>(
  tenantId: string | null,
  path: Path,
): { path: Path; headers: Record<string, string> } {
  if (tenantId !== null) return { path, headers: { [tenantHeader]: tenantId } };
  return { path: path.replace('/v1.0/webhooks', '/v1.0/admin/webhooks') as Path, headers: {} };
}

interface Answer<Data> {
  data?: Data;
  error?: unknown;
  response: Response;
}

/**
 * The agent service's API with typed requests and answers (generated from its OpenAPI document).
 * Tokens are obtained, cached and renewed by a {@link TokenManager}; an error answer throws an
 * {@link AgentApiError} carrying the problem details.
 *
 * ```ts
 * const agent = new AgentClient({ baseUrl, credentials: { username: 'admin', password: 'admin' } });
 * const tenant = await agent.createTenant({ id: 'acme', label: 'ACME Corp' });
 * const did = await agent.getDid('acme');
 * ```
 */
export class AgentClient {
  readonly tokens: TokenManager;
  /** The underlying openapi-fetch client, authorized the same way, for anything the methods lack. */
  readonly api: Client<paths>;

  constructor(options: AgentClientOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.tokens = new TokenManager({
      tokenUrl: options.tokenUrl ?? tokenUrlOf(baseUrl),
      credentials: options.credentials,
      fetch: options.fetch,
      now: options.now,
    });
    this.api = createClient<paths>({
      baseUrl,
      fetch: (request: Request) => this.tokens.fetch(request),
    });
  }

  /** Creates a tenant and its DID (agent-admin). */
  async createTenant(tenant: NewTenant, options: IdempotencyOptions = {}): Promise<Tenant> {
    return this.#result(
      'POST /ctrl/api/v1.0/tenants/create',
      await this.api.POST('/ctrl/api/v1.0/tenants/create', {
        headers: keyHeader(options),
        body: tenant,
      }),
    );
  }

  /** Changes a tenant's label or image; `imageUrl: null` removes the image (agent-admin). */
  async updateTenant(id: string, changes: TenantChanges): Promise<Tenant> {
    return this.#result(
      `POST /ctrl/api/v1.0/tenants/${id}/update`,
      await this.api.POST('/ctrl/api/v1.0/tenants/{id}/update', {
        params: { path: { id } },
        body: changes,
      }),
    );
  }

  /** Deletes a tenant and destroys its keys (agent-admin). */
  async deleteTenant(id: string): Promise<void> {
    this.#result(
      `POST /ctrl/api/v1.0/tenants/${id}/delete`,
      await this.api.POST('/ctrl/api/v1.0/tenants/{id}/delete', { params: { path: { id } } }),
    );
  }

  /** One page of tenants: all of them for agent-admin, its own for an agent-user. */
  async listTenants(query: ListTenantsQuery = {}): Promise<TenantPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/tenants',
      await this.api.GET('/ctrl/api/v1.0/tenants', { params: { query } }),
    );
  }

  async getTenant(id: string): Promise<Tenant> {
    return this.#result(
      `GET /ctrl/api/v1.0/tenants/${id}`,
      await this.api.GET('/ctrl/api/v1.0/tenants/{id}', { params: { path: { id } } }),
    );
  }

  /** The DID of a tenant (sent as the `x-tenant-id` header). */
  async getDid(tenantId: string): Promise<Did> {
    return this.#result(
      'GET /ctrl/api/v1.0/did',
      await this.api.GET('/ctrl/api/v1.0/did', { headers: { [tenantHeader]: tenantId } }),
    );
  }

  /**
   * The W3C DID document of a tenant's DID (`application/did+ld+json`); `{ format: 'multikey' }` gives
   * the did:key specification's current form.
   */
  async getDidDocument(tenantId: string, query: DidDocumentQuery = {}): Promise<DidDocument> {
    return this.#result(
      'GET /ctrl/api/v1.0/did/document',
      await this.api.GET('/ctrl/api/v1.0/did/document', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  /** Issues a credential signed by the tenant's DID. */
  async issueCredential(
    tenantId: string,
    request: IssueCredentialRequest,
    options: IdempotencyOptions = {},
  ): Promise<VerifiableCredential> {
    const issued = this.#result(
      'POST /ctrl/api/v1.0/credentials/issue',
      await this.api.POST('/ctrl/api/v1.0/credentials/issue', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: request,
      }),
    );
    return issued.verifiableCredential;
  }

  /** Verifies a credential; a credential that fails a check throws AgentApiError with status 422. */
  async verifyCredential(
    tenantId: string,
    verifiableCredential: VerifiableCredential,
    options?: VerifyCredentialOptions,
  ): Promise<Verification> {
    return this.#result(
      'POST /ctrl/api/v1.0/credentials/verify',
      await this.api.POST('/ctrl/api/v1.0/credentials/verify', {
        headers: { [tenantHeader]: tenantId },
        body: options === undefined ? { verifiableCredential } : { verifiableCredential, options },
      }),
    );
  }

  /**
   * The credentials a tenant issued, newest first: records, never claims. A page's `after`, sent back
   * as `after`, asks for the page after it (docs/api.md, Cursors).
   */
  async listCredentials(
    tenantId: string,
    query: ListCredentialsQuery = {},
  ): Promise<IssuedCredentialPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/credentials',
      await this.api.GET('/ctrl/api/v1.0/credentials', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  /** One credential a tenant issued, by its id. */
  async getCredential(tenantId: string, id: string): Promise<IssuedCredential> {
    return this.#result(
      'GET /ctrl/api/v1.0/credentials/{id}',
      await this.api.GET('/ctrl/api/v1.0/credentials/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Revokes, suspends or unsuspends a credential the tenant issued. */
  async updateCredentialStatus(tenantId: string, change: CredentialStatusChange): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/credentials/status',
      await this.api.POST('/ctrl/api/v1.0/credentials/status', {
        headers: { [tenantHeader]: tenantId },
        body: change,
      }),
    );
  }

  /**
   * Subscribes a URL to a tenant's events, or with `tenantId` null (agent-admin) to every tenant's;
   * keep the answer's `secret`, it is not shown again. Every webhook method takes the same `tenantId`.
   */
  async createWebhook(
    tenantId: string | null,
    webhook: NewWebhook,
    options: IdempotencyOptions = {},
  ): Promise<CreatedWebhook> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/create');
    return this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: { ...route.headers, ...keyHeader(options) },
        body: webhook,
      }),
    );
  }

  /**
   * A tenant's subscriptions, newest first, without their secrets. A page's `after`, sent back as
   * `after`, asks for the page after it (docs/api.md, Cursors).
   */
  async listWebhooks(tenantId: string | null, query: ListWebhooksQuery = {}): Promise<WebhookPage> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks');
    return this.#result(
      `GET ${route.path}`,
      await this.api.GET(route.path, {
        headers: route.headers,
        params: { query },
      }),
    );
  }

  async getWebhook(tenantId: string | null, id: string): Promise<Webhook> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}');
    return this.#result(
      `GET ${route.path}`,
      await this.api.GET(route.path, {
        headers: route.headers,
        params: { path: { id } },
      }),
    );
  }

  /** Changes a subscription; `{ enabled: true }` resumes one the service disabled. */
  async updateWebhook(
    tenantId: string | null,
    id: string,
    changes: WebhookChanges,
  ): Promise<Webhook> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}/update');
    return this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: route.headers,
        params: { path: { id } },
        body: changes,
      }),
    );
  }

  /** A new signing secret; the old one keeps signing beside it until `previousSecretExpiresAt`. */
  async rotateWebhookSecret(
    tenantId: string | null,
    id: string,
    options: IdempotencyOptions = {},
  ): Promise<RotatedWebhookSecret> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}/rotate-secret');
    return this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: { ...route.headers, ...keyHeader(options) },
        params: { path: { id } },
      }),
    );
  }

  /** Queues a `webhook.test` event for the subscription; answers its delivery id. */
  async testWebhook(
    tenantId: string | null,
    id: string,
    options: IdempotencyOptions = {},
  ): Promise<{ deliveryId: string }> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}/test');
    return this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: { ...route.headers, ...keyHeader(options) },
        params: { path: { id } },
      }),
    );
  }

  /**
   * The subscription's deliveries, newest first, each with its attempts. A page's `after`, sent back
   * as `after`, asks for the page after it (docs/api.md, Cursors).
   */
  async listWebhookDeliveries(
    tenantId: string | null,
    id: string,
    query: ListWebhooksQuery = {},
  ): Promise<WebhookDeliveryPage> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}/deliveries');
    return this.#result(
      `GET ${route.path}`,
      await this.api.GET(route.path, {
        headers: route.headers,
        params: { path: { id }, query },
      }),
    );
  }

  /** Sends one delivery again, now, with the same `webhook-id`. */
  async redeliverWebhook(
    tenantId: string | null,
    id: string,
    deliveryId: string,
  ): Promise<{ deliveryId: string }> {
    const route = webhookRoute(
      tenantId,
      '/ctrl/api/v1.0/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    );
    return this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: route.headers,
        params: { path: { id, deliveryId } },
      }),
    );
  }

  async deleteWebhook(tenantId: string | null, id: string): Promise<void> {
    const route = webhookRoute(tenantId, '/ctrl/api/v1.0/webhooks/{id}/delete');
    this.#result(
      `POST ${route.path}`,
      await this.api.POST(route.path, {
        headers: route.headers,
        params: { path: { id } },
      }),
    );
  }

  /** Verifies a presentation (its holder's proof, challenge and domain) and every credential in it. */
  async verifyPresentation(
    tenantId: string,
    verifiablePresentation: Record<string, unknown>,
    options: VerifyPresentationOptions = {},
  ): Promise<PresentationVerification> {
    return this.#result(
      'POST /ctrl/api/v1.0/presentations/verify',
      await this.api.POST('/ctrl/api/v1.0/presentations/verify', {
        headers: { [tenantHeader]: tenantId },
        body: { verifiablePresentation, options },
      }),
    );
  }

  /** Adds an issuer to the tenant's trusted issuers list (verification then accepts only those listed). */
  async createTrustedIssuer(
    tenantId: string,
    trustedIssuer: NewTrustedIssuer,
    options: IdempotencyOptions = {},
  ): Promise<TrustedIssuer> {
    return this.#result(
      'POST /ctrl/api/v1.0/trusted-issuers/create',
      await this.api.POST('/ctrl/api/v1.0/trusted-issuers/create', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: trustedIssuer,
      }),
    );
  }

  /** The tenant's trusted issuers, newest first. */
  async listTrustedIssuers(
    tenantId: string,
    query: ListTrustedIssuersQuery = {},
  ): Promise<TrustedIssuerPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/trusted-issuers',
      await this.api.GET('/ctrl/api/v1.0/trusted-issuers', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  async getTrustedIssuer(tenantId: string, id: string): Promise<TrustedIssuer> {
    return this.#result(
      'GET /ctrl/api/v1.0/trusted-issuers/{id}',
      await this.api.GET('/ctrl/api/v1.0/trusted-issuers/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  async deleteTrustedIssuer(tenantId: string, id: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/trusted-issuers/{id}/delete',
      await this.api.POST('/ctrl/api/v1.0/trusted-issuers/{id}/delete', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Adds an X.509 trust anchor (PEM): x5c chains of presented SD-JWT VCs must then end at one. */
  async createTrustAnchor(
    tenantId: string,
    anchor: NewTrustAnchor,
    options: IdempotencyOptions = {},
  ): Promise<TrustAnchor> {
    return this.#result(
      'POST /ctrl/api/v1.0/trust-anchors/create',
      await this.api.POST('/ctrl/api/v1.0/trust-anchors/create', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: anchor,
      }),
    );
  }

  /** The tenant's trust anchors, newest first. */
  async listTrustAnchors(
    tenantId: string,
    query: ListTrustAnchorsQuery = {},
  ): Promise<TrustAnchorPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/trust-anchors',
      await this.api.GET('/ctrl/api/v1.0/trust-anchors', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  async getTrustAnchor(tenantId: string, id: string): Promise<TrustAnchor> {
    return this.#result(
      'GET /ctrl/api/v1.0/trust-anchors/{id}',
      await this.api.GET('/ctrl/api/v1.0/trust-anchors/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  async deleteTrustAnchor(tenantId: string, id: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/trust-anchors/{id}/delete',
      await this.api.POST('/ctrl/api/v1.0/trust-anchors/{id}/delete', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Trusts a wallet provider's CA certificate (PEM): its wallet and key attestations then verify. */
  async createWalletProvider(
    tenantId: string,
    provider: NewWalletProvider,
    options: IdempotencyOptions = {},
  ): Promise<WalletProvider> {
    return this.#result(
      'POST /ctrl/api/v1.0/wallet-providers/create',
      await this.api.POST('/ctrl/api/v1.0/wallet-providers/create', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: provider,
      }),
    );
  }

  /** The tenant's trusted wallet providers, newest first. */
  async listWalletProviders(
    tenantId: string,
    query: ListWalletProvidersQuery = {},
  ): Promise<WalletProviderPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/wallet-providers',
      await this.api.GET('/ctrl/api/v1.0/wallet-providers', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  async getWalletProvider(tenantId: string, id: string): Promise<WalletProvider> {
    return this.#result(
      'GET /ctrl/api/v1.0/wallet-providers/{id}',
      await this.api.GET('/ctrl/api/v1.0/wallet-providers/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  async deleteWalletProvider(tenantId: string, id: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/wallet-providers/{id}/delete',
      await this.api.POST('/ctrl/api/v1.0/wallet-providers/{id}/delete', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Whether the tenant's token endpoint requires a wallet attestation (and whether it chose so). */
  async getWalletAttestationPolicy(tenantId: string): Promise<WalletAttestationPolicy> {
    return this.#result(
      'GET /ctrl/api/v1.0/wallet-providers/policy',
      await this.api.GET('/ctrl/api/v1.0/wallet-providers/policy', {
        headers: { [tenantHeader]: tenantId },
      }),
    );
  }

  /** Requires or relaxes wallet attestations; null goes back to the default. */
  async setWalletAttestationPolicy(
    tenantId: string,
    walletAttestation: 'required' | 'optional' | null,
  ): Promise<WalletAttestationPolicy> {
    return this.#result(
      'POST /ctrl/api/v1.0/wallet-providers/policy',
      await this.api.POST('/ctrl/api/v1.0/wallet-providers/policy', {
        headers: { [tenantHeader]: tenantId },
        body: { walletAttestation },
      }),
    );
  }

  /** The tenant's X.509 certificate chains, newest first; at most one is `active`. */
  async listCertificates(
    tenantId: string,
    query: ListCertificatesQuery = {},
  ): Promise<CertificatePage> {
    return this.#result(
      'GET /ctrl/api/v1.0/certificates',
      await this.api.GET('/ctrl/api/v1.0/certificates', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  /** A PKCS #10 request (PEM) for the tenant's ES256 key, signed by it, for a CA of your own. */
  async createCertificateSigningRequest(
    tenantId: string,
    options: CertificateSigningRequestOptions = {},
  ): Promise<string> {
    const answer = this.#result(
      'POST /ctrl/api/v1.0/certificates/csr',
      await this.api.POST('/ctrl/api/v1.0/certificates/csr', {
        headers: { [tenantHeader]: tenantId },
        body: options,
      }),
    );
    return answer.csr;
  }

  /**
   * Makes a PEM chain (leaf first) the tenant's active one of its purpose: `x5c` (the default) or
   * `document_signer`; the earlier one of that purpose is superseded.
   */
  async importCertificate(
    tenantId: string,
    chain: string,
    options: IdempotencyOptions & { purpose?: 'x5c' | 'document_signer' } = {},
  ): Promise<Certificate> {
    return this.#result(
      'POST /ctrl/api/v1.0/certificates/import',
      await this.api.POST('/ctrl/api/v1.0/certificates/import', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: { chain, ...(options.purpose === undefined ? {} : { purpose: options.purpose }) },
      }),
    );
  }

  /**
   * A certificate from the service's authority becomes the tenant's active one of its purpose: `x5c`
   * (the default, its JWS chain) or `document_signer` (its mdocs' document signer).
   */
  async issueCertificate(
    tenantId: string,
    purpose?: 'x5c' | 'document_signer',
  ): Promise<Certificate> {
    return this.#result(
      'POST /ctrl/api/v1.0/certificates/issue',
      await this.api.POST('/ctrl/api/v1.0/certificates/issue', {
        headers: { [tenantHeader]: tenantId },
        ...(purpose === undefined ? {} : { body: { purpose } }),
      }),
    );
  }

  /** The root certificate (PEM) of the service's authority: the trust anchor of its chains. */
  async getCertificateAuthority(tenantId: string): Promise<{ certificate: string }> {
    return this.#result(
      'GET /ctrl/api/v1.0/certificates/authority',
      await this.api.GET('/ctrl/api/v1.0/certificates/authority', {
        headers: { [tenantHeader]: tenantId },
      }),
    );
  }

  /** Adds an OpenID4VCI credential configuration: the tenant's issuer metadata lists it at once. */
  async createCredentialConfiguration(
    tenantId: string,
    configuration: NewCredentialConfiguration,
    options: IdempotencyOptions = {},
  ): Promise<CredentialConfiguration> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vci/credential-configurations/create',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        body: configuration,
      }),
    );
  }

  /** The tenant's credential configurations, newest first. */
  async listCredentialConfigurations(
    tenantId: string,
    query: ListCredentialConfigurationsQuery = {},
  ): Promise<CredentialConfigurationPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vci/credential-configurations',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/credential-configurations', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  async getCredentialConfiguration(tenantId: string, id: string): Promise<CredentialConfiguration> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vci/credential-configurations/{id}',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/credential-configurations/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Replaces the configuration's definition (a field left out takes its default). */
  async updateCredentialConfiguration(
    tenantId: string,
    id: string,
    definition: CredentialConfigurationDefinition,
  ): Promise<CredentialConfiguration> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vci/credential-configurations/{id}/update',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/credential-configurations/{id}/update', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
        body: definition,
      }),
    );
  }

  async deleteCredentialConfiguration(tenantId: string, id: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/oid4vci/credential-configurations/{id}/delete',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/credential-configurations/{id}/delete', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }
  /** Sets the OpenID provider the tenant's people log in at, replacing any (docs/login-provider.md). */
  async setLoginProvider(tenantId: string, provider: NewLoginProvider): Promise<LoginProvider> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vci/login-provider',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/login-provider', {
        headers: { [tenantHeader]: tenantId },
        body: provider,
      }),
    );
  }

  /** The tenant's login provider, or the default (`default: true`). */
  async getLoginProvider(tenantId: string): Promise<LoginProvider> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vci/login-provider',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/login-provider', {
        headers: { [tenantHeader]: tenantId },
      }),
    );
  }

  /** Back to the default login provider. */
  async deleteLoginProvider(tenantId: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/oid4vci/login-provider/delete',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/login-provider/delete', {
        headers: { [tenantHeader]: tenantId },
      }),
    );
  }

  /**
   * Offers a credential to a wallet (pre-authorized code flow): answers the link and, when asked for,
   * the transaction code, which is not shown again.
   */
  async createOffer(
    tenantId: string,
    offer: NewOffer,
    options: IdempotencyOptions = {},
  ): Promise<CreatedOffer> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vci/offers',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/offers', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        // The generated type requires the fields with a default; the service fills them in.
        body: offer as Schemas['CreateOfferDto'],
      }),
    );
  }

  /** The tenant's credential offers, newest first: never a code or a claim. */
  async listOffers(tenantId: string, query: ListOffersQuery = {}): Promise<OfferPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vci/offers',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/offers', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  async getOffer(tenantId: string, id: string): Promise<Offer> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vci/offers/{id}',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/offers/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** Ends an open offer and drops its claims; one no longer open throws 409 `OFFER_NOT_OPEN`. */
  async withdrawOffer(tenantId: string, id: string): Promise<Offer> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vci/offers/{id}/withdraw',
      await this.api.POST('/ctrl/api/v1.0/oid4vci/offers/{id}/withdraw', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** The open offer's link as a QR code: the SVG's text, or the PNG's bytes (512 pixels wide). */
  offerQrCode(tenantId: string, id: string, format: 'svg'): Promise<string>;
  offerQrCode(tenantId: string, id: string, format: 'png'): Promise<Uint8Array>;
  offerQrCode(
    tenantId: string,
    id: string,
    format: OfferQrCodeFormat,
  ): Promise<string | Uint8Array>;
  async offerQrCode(
    tenantId: string,
    id: string,
    format: OfferQrCodeFormat,
  ): Promise<string | Uint8Array> {
    const request = { headers: { [tenantHeader]: tenantId }, params: { path: { id } } };
    if (format === 'svg') {
      return this.#result(
        'GET /ctrl/api/v1.0/oid4vci/offers/{id}/qr.svg',
        await this.api.GET('/ctrl/api/v1.0/oid4vci/offers/{id}/qr.svg', {
          ...request,
          parseAs: 'text',
        }),
      );
    }
    const png = this.#result(
      'GET /ctrl/api/v1.0/oid4vci/offers/{id}/qr.png',
      await this.api.GET('/ctrl/api/v1.0/oid4vci/offers/{id}/qr.png', {
        ...request,
        parseAs: 'arrayBuffer',
      }),
    );
    return new Uint8Array(png);
  }

  /**
   * Asks a wallet to present credentials (OpenID4VP): answers the request and its link
   * (`openid4vp://...`) for the wallet; the DCQL query is checked (400 naming the problem).
   */
  async createPresentationRequest(
    tenantId: string,
    request: NewPresentationRequest,
    options: IdempotencyOptions = {},
  ): Promise<CreatedPresentationRequest> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vp/requests',
      await this.api.POST('/ctrl/api/v1.0/oid4vp/requests', {
        headers: { [tenantHeader]: tenantId, ...keyHeader(options) },
        // The generated type requires the fields with a default; the service fills them in.
        body: request as Schemas['CreatePresentationRequestDto'],
      }),
    );
  }

  /** The tenant's presentation requests, newest first. */
  async listPresentationRequests(
    tenantId: string,
    query: ListPresentationRequestsQuery = {},
  ): Promise<PresentationRequestPage> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vp/requests',
      await this.api.GET('/ctrl/api/v1.0/oid4vp/requests', {
        headers: { [tenantHeader]: tenantId },
        params: { query },
      }),
    );
  }

  /** The request's status; when verified, what was presented and the disclosed claims while kept. */
  async getPresentationRequest(tenantId: string, id: string): Promise<PresentationRequest> {
    return this.#result(
      'GET /ctrl/api/v1.0/oid4vp/requests/{id}',
      await this.api.GET('/ctrl/api/v1.0/oid4vp/requests/{id}', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /**
   * Hands over what the browser's Digital Credentials API returned for a `dc_api` or `dc_api.jwt`
   * request: `data` as `navigator.credentials.get` gave it and the page's `origin`. Answers the
   * request as concluded (verified or failed); an answer not bound to it is a 400
   * `PRESENTATION_ANSWER_REFUSED`, the request staying pending.
   */
  async submitDcApiResponse(
    tenantId: string,
    id: string,
    response: DcApiResponse,
  ): Promise<PresentationRequest> {
    return this.#result(
      'POST /ctrl/api/v1.0/oid4vp/requests/{id}/dc-api-response',
      await this.api.POST('/ctrl/api/v1.0/oid4vp/requests/{id}/dc-api-response', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
        body: response,
      }),
    );
  }

  /** Deletes the request, its outcome and its claims; a pending one can no longer be answered. */
  async deletePresentationRequest(tenantId: string, id: string): Promise<void> {
    this.#result(
      'POST /ctrl/api/v1.0/oid4vp/requests/{id}/delete',
      await this.api.POST('/ctrl/api/v1.0/oid4vp/requests/{id}/delete', {
        headers: { [tenantHeader]: tenantId },
        params: { path: { id } },
      }),
    );
  }

  /** The pending request's link as a QR code: the SVG's text, or the PNG's bytes (512 pixels wide). */
  presentationRequestQrCode(tenantId: string, id: string, format: 'svg'): Promise<string>;
  presentationRequestQrCode(tenantId: string, id: string, format: 'png'): Promise<Uint8Array>;
  presentationRequestQrCode(
    tenantId: string,
    id: string,
    format: OfferQrCodeFormat,
  ): Promise<string | Uint8Array>;
  async presentationRequestQrCode(
    tenantId: string,
    id: string,
    format: OfferQrCodeFormat,
  ): Promise<string | Uint8Array> {
    const request = { headers: { [tenantHeader]: tenantId }, params: { path: { id } } };
    if (format === 'svg') {
      return this.#result(
        'GET /ctrl/api/v1.0/oid4vp/requests/{id}/qr.svg',
        await this.api.GET('/ctrl/api/v1.0/oid4vp/requests/{id}/qr.svg', {
          ...request,
          parseAs: 'text',
        }),
      );
    }
    const png = this.#result(
      'GET /ctrl/api/v1.0/oid4vp/requests/{id}/qr.png',
      await this.api.GET('/ctrl/api/v1.0/oid4vp/requests/{id}/qr.png', {
        ...request,
        parseAs: 'arrayBuffer',
      }),
    );
    return new Uint8Array(png);
  }

  // An ES private method: the prototype shows the API methods only.
  #result<Data>(request: string, answer: Answer<Data>): Data {
    if (!answer.response.ok) throw AgentApiError.from(answer.response, answer.error, request);
    return answer.data as Data;
  }
}
