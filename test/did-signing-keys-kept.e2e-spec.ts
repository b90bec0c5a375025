import { setGlobalConfig } from '@openid4vc/openid4vci';
import { UnsealedKeys } from '../src/did/unsealed-keys.js';
import { alumniCredential, issue, verifyCredential } from './support/credentials-harness.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { independentVerifier, jsonPart, receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey } from './support/oid4vci-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

/**
 * The tenants' keys kept unsealed in memory (docs/architecture.md, A tenant's signing keys), on two
 * instances of one database: a key replaced through one instance never signs again on the other, which
 * hears nothing of it but reads the key's row for each signature. Wallets and verifiers are independent
 * libraries (OWF's @openid4vc/openid4vci, @sd-jwt/sd-jwt-vc) or the verify API.
 */
describe("A tenant's keys kept unsealed, across two instances", () => {
  let a: TestService;
  let b: TestService;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    a = await startTestService();
    // As a scaled deployment runs: one database, master key and token issuer (A's), its own origin.
    const second = await startTestService({
      env: {
        DATABASE_URL: a.databaseUrl,
        AGENT_MASTER_KEY: a.masterKey,
        AUTH_ISSUER_URL: `${a.publicBaseUrl}/auth/realms/agent-cloud`,
      },
    });
    const token = await a.tokenFor('admin');
    b = { ...second, request: (path, request = {}) => second.request(path, { ...request, token }) };
  });

  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await b?.close();
    await a?.close();
  });

  async function createTenant(service: TestService, id: string): Promise<void> {
    const made = await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id, label: `Tenant ${id}` },
    });
    expect(made.status).toBe(201);
    const configured = await service.request(
      '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
      { method: 'POST', headers: { 'x-tenant-id': id }, body: sdJwtBadge },
    );
    expect(configured.status).toBe(201);
  }

  async function deleteTenant(service: TestService, id: string): Promise<void> {
    const deleted = await service.request(`/ctrl/api/v1.0/tenants/${id}/delete`, {
      method: 'POST',
    });
    expect(deleted.status).toBe(204);
  }

  /** A Data Integrity VC issued through `service`, checked by the verify API; its proof's method. */
  async function issuesVerified(service: TestService, tenantId: string): Promise<string> {
    const issued = await issue(service, tenantId, alumniCredential());
    expect(issued.status).toBe(201);
    const verified = await verifyCredential(service, tenantId, issued.body.verifiableCredential);
    expect(verified.body).toMatchObject({ verified: true });
    const proof = issued.body.verifiableCredential.proof as { verificationMethod: string };
    return proof.verificationMethod;
  }

  /**
   * An SD-JWT VC received from `service` by OWF's wallet, verified by @sd-jwt/sd-jwt-vc with the keys
   * of the issuer's published metadata (and its Status List Token); the `kid` it was signed under.
   */
  async function receivesVerified(service: TestService, tenantId: string): Promise<string> {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } },
    });
    expect(offer.status).toBe(201);
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [
      await walletKey('ES256'),
    ]);
    const sdJwt = received.credentials[0] as string;
    const { payload } = await independentVerifier().verify(sdJwt);
    expect(payload).toMatchObject({ given_name: 'Erika' });
    return jsonPart(sdJwt.split('.')[0]).kid as string;
  }

  const didOf = async (service: TestService, tenantId: string) =>
    (
      await service.request<{ id: string }>('/ctrl/api/v1.0/did', {
        headers: { 'x-tenant-id': tenantId },
      })
    ).body.id;

  it('signs with the new keys on B once A deleted the tenant and made it again under the same id', async () => {
    await createTenant(a, 'kept-1');
    const oldMethod = await issuesVerified(b, 'kept-1');
    const oldKid = await receivesVerified(b, 'kept-1');

    // On A: B hears nothing, and still keeps the old keys.
    await deleteTenant(a, 'kept-1');
    await createTenant(a, 'kept-1');

    const newMethod = await issuesVerified(b, 'kept-1');
    expect(newMethod).not.toBe(oldMethod);
    expect(newMethod.startsWith(`${await didOf(a, 'kept-1')}#`)).toBe(true);
    const newKid = await receivesVerified(b, 'kept-1');
    expect(newKid).not.toBe(oldKid);
  });

  it("signs with the tenant's own key on each instance, and drops a deleted tenant's keys where it was deleted", async () => {
    await createTenant(a, 'kept-2');
    await issuesVerified(a, 'kept-2');
    await receivesVerified(a, 'kept-2');
    await issuesVerified(b, 'kept-2');
    const kept = a.app.get(UnsealedKeys);
    const before = kept.size;

    await deleteTenant(a, 'kept-2');

    // Its DID's Ed25519 key and its ES256 key.
    expect(kept.size).toBe(before - 2);
  });
});
