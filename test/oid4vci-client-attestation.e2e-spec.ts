import { setGlobalConfig } from '@openid4vc/oauth2';
import { startTestService, postForm, type TestService } from './support/test-service.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { fakeHolderIssuance, insertOffer, offerRow } from './support/oid4vci-offers.js';
import { dpopProof, walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  attestationPop,
  owfAttestation,
  owfAttestedClient,
} from './support/wallet-attestations.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';
import { SpentProofs } from '../src/wallet-providers/spent-proofs.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * Wallet attestations at the token endpoint (OAuth 2.0 Attestation-Based Client Authentication,
 * HAIP 1.0 §4.4) and DPoP proofs used once, over real HTTP and PostgreSQL; the happy path made by OWF's
 * @openid4vc/oauth2 0.4, its certificates by @peculiar/x509 (docs/wallet-providers.md).
 */
describe('Client attestation at the token endpoint', () => {
  let service: TestService;
  let issuer: string;
  let root: TestCertificate;
  let attester: TestCertificate;
  let strangerRoot: TestCertificate;
  let strangerAttester: TestCertificate;
  let instance: WalletKey;
  let attestation: string;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    fakeHolderIssuance(service);
    await service.client().createTenant({ id: 'wallets', label: 'Wallets' });
    await service.client().createCredentialConfiguration('wallets', sdJwtBadge);
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/wallets`;
    root = await makeCertificate('Wallet provider CA', { ca: true });
    attester = await makeCertificate('Wallet attester', { issuer: root });
    strangerRoot = await makeCertificate('Unknown provider CA', { ca: true });
    strangerAttester = await makeCertificate('Unknown attester', { issuer: strangerRoot });
    await service.client().createWalletProvider('wallets', { certificate: root.pem });
    instance = await walletKey('ES256');
    attestation = await owfAttestation(attester, [attester], instance);
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const newOffer = () =>
    insertOffer(service, {
      tenantId: 'wallets',
      configuration: sdJwtBadge,
      claims: { given_name: 'Ada' },
    });

  const postToken = (code: string, headers: Record<string, string> = {}, fields: Json = {}) =>
    postForm(
      service.url,
      '/ctrl/oid4vci/wallets/token',
      {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': code,
        ...(fields as Record<string, string>),
      },
      headers,
    );

  const attested = async (pop?: string, jwt = attestation) => ({
    'OAuth-Client-Attestation': jwt,
    'OAuth-Client-Attestation-PoP': pop ?? (await attestationPop(instance, issuer)),
  });

  async function expectInvalidClient(
    code: string,
    headers: Record<string, string>,
    fields: Json = {},
  ) {
    const answer = await postToken(code, headers, fields);
    expect({ status: answer.status, error: (answer.body as Json).error }).toEqual({
      status: 401,
      error: 'invalid_client',
    });
    return answer;
  }

  it('gives a DPoP-bound token to OWF’s client authenticating with its wallet attestation', async () => {
    const dpopKey = await walletKey('ES256');
    const client = owfAttestedClient(attestation, [instance, dpopKey]);
    const metadata = await client.fetchAuthorizationServerMetadata(issuer);
    expect(metadata).toMatchObject({
      token_endpoint_auth_methods_supported: ['attest_jwt_client_auth'],
      client_attestation_pop_signing_alg_values_supported: ['ES256'],
      dpop_signing_alg_values_supported: ['ES256'],
    });
    expect(client.isClientAttestationSupported({ authorizationServerMetadata: metadata! })).toEqual(
      {
        supported: true,
      },
    );
    const offer = await newOffer();
    const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
      authorizationServerMetadata: metadata!,
      preAuthorizedCode: offer.preAuthorizedCode,
      dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: dpopKey.publicJwk as never } },
    });
    expect(accessTokenResponse.token_type).toBe('DPoP');
    expect((await offerRow(service.dataSource, offer.id)).status).toBe('accepted');
  });

  it('refuses a token request without attestation, the tenant listing a provider, and changes nothing', async () => {
    expect(await service.client().getWalletAttestationPolicy('wallets')).toEqual({
      walletAttestation: 'required',
      explicit: false,
    });
    const offer = await newOffer();
    const answer = await expectInvalidClient(offer.preAuthorizedCode, {});
    expect((answer.body as Json).error_description).toMatch(/requires a wallet attestation/);
    expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
  });

  it('refuses one header without the other', async () => {
    const offer = await newOffer();
    await expectInvalidClient(offer.preAuthorizedCode, { 'OAuth-Client-Attestation': attestation });
  });

  it('refuses an attestation whose chain ends at no provider of the tenant', async () => {
    const foreign = await owfAttestation(strangerAttester, [strangerAttester], instance);
    const offer = await newOffer();
    const answer = await expectInvalidClient(
      offer.preAuthorizedCode,
      await attested(undefined, foreign),
    );
    expect((answer.body as Json).error_description).toMatch(/x5c chain/);
    expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
  });

  it('refuses a stale PoP, a PoP by another key, and one for another audience', async () => {
    const offer = await newOffer();
    const stale = await attestationPop(instance, issuer, {
      iat: Math.floor(Date.now() / 1000) - 600,
    });
    await expectInvalidClient(offer.preAuthorizedCode, await attested(stale));
    const other = await walletKey('ES256');
    await expectInvalidClient(
      offer.preAuthorizedCode,
      await attested(await attestationPop(other, issuer)),
    );
    const elsewhere = await attestationPop(instance, 'https://other.example/issuer');
    await expectInvalidClient(offer.preAuthorizedCode, await attested(elsewhere));
    expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
  });

  it('refuses a replayed PoP jti', async () => {
    const pop = await attestationPop(instance, issuer);
    const first = await postToken((await newOffer()).preAuthorizedCode, await attested(pop));
    expect(first.status).toBe(200);
    const answer = await expectInvalidClient(
      (await newOffer()).preAuthorizedCode,
      await attested(pop),
    );
    expect((answer.body as Json).error_description).toMatch(/used before/);
  });

  it('refuses a client_id other than the attestation’s sub, and takes the same one', async () => {
    await expectInvalidClient((await newOffer()).preAuthorizedCode, await attested(), {
      client_id: 'another-wallet',
    });
    const same = await postToken((await newOffer()).preAuthorizedCode, await attested(), {
      client_id: 'wallet-client',
    });
    expect(same.status).toBe(200);
  });

  it('lets a wallet without attestation through once the policy says optional, but not a bad one', async () => {
    const client = service.client();
    expect(await client.setWalletAttestationPolicy('wallets', 'optional')).toEqual({
      walletAttestation: 'optional',
      explicit: true,
    });
    try {
      expect((await postToken((await newOffer()).preAuthorizedCode)).status).toBe(200);
      const foreign = await owfAttestation(strangerAttester, [strangerAttester], instance);
      await expectInvalidClient(
        (await newOffer()).preAuthorizedCode,
        await attested(undefined, foreign),
      );
    } finally {
      await client.setWalletAttestationPolicy('wallets', null);
    }
  });

  describe('DPoP proofs are used once', () => {
    it('refuses a DPoP proof replayed at the token endpoint', async () => {
      const key = await walletKey('ES256');
      const proof = await dpopProof(key, { htu: `${issuer}/token` });
      const first = await postToken((await newOffer()).preAuthorizedCode, {
        ...(await attested()),
        DPoP: proof,
      });
      expect(first.status).toBe(200);
      const offer = await newOffer();
      const again = await postToken(offer.preAuthorizedCode, {
        ...(await attested()),
        DPoP: proof,
      });
      expect({ status: again.status, error: (again.body as Json).error }).toEqual({
        status: 400,
        error: 'invalid_dpop_proof',
      });
      expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
    });

    it('lets exactly one of two concurrent token requests with one DPoP proof through', async () => {
      const key = await walletKey('ES256');
      const proof = await dpopProof(key, { htu: `${issuer}/token` });
      const offers = [await newOffer(), await newOffer()];
      const answers = await Promise.all(
        offers.map(async (offer) =>
          postToken(offer.preAuthorizedCode, { ...(await attested()), DPoP: proof }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    });

    it('refuses at a second instance a DPoP proof the first took, and purges spent ids past their time', async () => {
      const other = await startTestService({
        env: { DATABASE_URL: service.databaseUrl, AGENT_MASTER_KEY: service.masterKey },
      });
      try {
        const key = await walletKey('ES256');
        const proof = await dpopProof(key, { htu: `${issuer}/token` });
        const first = await postToken((await newOffer()).preAuthorizedCode, {
          ...(await attested()),
          DPoP: proof,
        });
        expect(first.status).toBe(200);
        const offer = await newOffer();
        const again = await postForm(
          other.url,
          '/ctrl/oid4vci/wallets/token',
          { grant_type: preAuthorizedGrant, 'pre-authorized_code': offer.preAuthorizedCode },
          { ...(await attested()), DPoP: proof },
        );
        expect((again.body as Json).error).toBe('invalid_dpop_proof');
      } finally {
        await other.close();
      }
      const spentProofs = service.app.get(SpentProofs, { strict: false });
      await service.dataSource.query(
        `INSERT INTO spent_proof_jti (kind, tenant_id, jti_hash, expires_at)
         VALUES ('dpop', 'wallets', '\\x00', now() - interval '1 minute')`,
      );
      expect(await spentProofs.purgeExpired()).toBeGreaterThanOrEqual(1);
      const [{ kept }] = await service.dataSource.query<{ kept: number }[]>(
        `SELECT count(*)::int AS kept FROM spent_proof_jti WHERE expires_at <= now()`,
      );
      expect(kept).toBe(0);
    });

    it('refuses a DPoP proof replayed at the credential endpoint, also concurrently', async () => {
      const key = await walletKey('ES256');
      const tokenAnswer = await postToken((await newOffer()).preAuthorizedCode, {
        ...(await attested()),
        DPoP: await dpopProof(key, { htu: `${issuer}/token` }),
      });
      const token = (tokenAnswer.body as { access_token: string }).access_token;
      const credentialCall = (proof: string) =>
        service.request<Json>('/ctrl/oid4vci/wallets/credential', {
          method: 'POST',
          as: 'anonymous',
          headers: { authorization: `DPoP ${token}`, dpop: proof },
          // A request the endpoint refuses after the token: the offer stays accepted for the next.
          body: { credential_configuration_id: 'another' },
        });
      const proof = await dpopProof(key, { htu: `${issuer}/credential`, accessToken: token });
      const first = await credentialCall(proof);
      expect(first.body.error).toBe('unknown_credential_configuration');
      const replay = await credentialCall(proof);
      expect({ status: replay.status, error: replay.body.error }).toEqual({
        status: 401,
        error: 'invalid_dpop_proof',
      });
      const shared = await dpopProof(key, { htu: `${issuer}/credential`, accessToken: token });
      const both = await Promise.all([credentialCall(shared), credentialCall(shared)]);
      expect(both.map((answer) => answer.body.error).sort()).toEqual([
        'invalid_dpop_proof',
        'unknown_credential_configuration',
      ]);
    });
  });
});
