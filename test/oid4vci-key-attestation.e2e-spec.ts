import { setGlobalConfig } from '@openid4vc/oauth2';
import { call, postForm, startTestService, type TestService } from './support/test-service.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { fakeHolderIssuance, insertOffer, offerRow } from './support/oid4vci-offers.js';
import { dpopProof, keyProof, walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  keyAttestation,
  owfAttestedClient,
  owfAttestation,
} from './support/wallet-attestations.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const keyBadge = {
  ...sdJwtBadge,
  id: 'KeyBadge',
  keyAttestationsRequired: { key_storage: ['iso_18045_high'] },
};

/**
 * Key attestations in JWT proofs (OpenID4VCI 1.0 Appendix D), one notification per credential and
 * event (§11), and DPoP server nonces (RFC 9449 §8) with OWF's client, over real HTTP and PostgreSQL.
 */
describe('Key attestations, notifications and DPoP nonces', () => {
  let service: TestService;
  let issuer: string;
  let root: TestCertificate;
  let attester: TestCertificate;
  let stranger: TestCertificate;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    fakeHolderIssuance(service);
    const client = service.client();
    await client.createTenant({ id: 'keys', label: 'Keys' });
    await client.createCredentialConfiguration('keys', sdJwtBadge);
    await client.createCredentialConfiguration('keys', keyBadge);
    root = await makeCertificate('Wallet provider CA', { ca: true });
    attester = await makeCertificate('Key attester', { issuer: root });
    stranger = await makeCertificate('Unknown key attester', { ca: false });
    await client.createWalletProvider('keys', { certificate: root.pem });
    // Client attestations are the other test file's: here the token endpoint lets wallets through.
    await client.setWalletAttestationPolicy('keys', 'optional');
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/keys`;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  async function tokenFor(
    configuration: typeof sdJwtBadge,
  ): Promise<{ token: string; offerId: string }> {
    const offer = await insertOffer(service, {
      tenantId: 'keys',
      configuration,
      claims: { given_name: 'Ada' },
    });
    const answer = await postForm(service.url, '/ctrl/oid4vci/keys/token', {
      grant_type: preAuthorizedGrant,
      'pre-authorized_code': offer.preAuthorizedCode,
    });
    expect(answer.status).toBe(200);
    return { token: (answer.body as { access_token: string }).access_token, offerId: offer.id };
  }

  async function nonce(): Promise<string> {
    const answer = await call<{ c_nonce: string }>(service.url, '/ctrl/oid4vci/keys/nonce', {
      method: 'POST',
    });
    return answer.body.c_nonce;
  }

  const requestCredential = (token: string, proofs: string[], configurationId = keyBadge.id) =>
    service.request<Json>('/ctrl/oid4vci/keys/credential', {
      method: 'POST',
      as: 'anonymous',
      headers: { authorization: `Bearer ${token}` },
      body: { credential_configuration_id: configurationId, proofs: { jwt: proofs } },
    });

  async function proofWith(key: WalletKey, attestation: string | undefined, c?: string) {
    return keyProof(key, {
      aud: issuer,
      nonce: c ?? (await nonce()),
      ...(attestation === undefined ? {} : { header: { key_attestation: attestation } }),
    });
  }

  it('advertises key_attestations_required under the jwt proof type of that configuration only', async () => {
    const answer = await call<Json>(
      service.url,
      '/.well-known/openid-credential-issuer/ctrl/oid4vci/keys',
    );
    const supported = answer.body.credential_configurations_supported as Record<string, Json>;
    expect(supported.KeyBadge.proof_types_supported).toEqual({
      jwt: {
        proof_signing_alg_values_supported: ['ES256', 'EdDSA'],
        key_attestations_required: { key_storage: ['iso_18045_high'] },
      },
    });
    expect(JSON.stringify(supported[sdJwtBadge.id])).not.toContain('key_attestations_required');
  });

  it('issues when each proof carries a key attestation of its key by a wallet provider', async () => {
    const keys = [await walletKey('ES256'), await walletKey('ES256')];
    const c = await nonce();
    const attestation = await keyAttestation(attester, [attester], keys, { nonce: c });
    const { token, offerId } = await tokenFor(keyBadge);
    const proofs = await Promise.all(keys.map((key) => proofWith(key, attestation, c)));
    const answer = await requestCredential(token, proofs);
    expect(answer.status).toBe(200);
    expect((await offerRow(service.dataSource, offerId)).status).toBe('issued');
  });

  it.each([
    ['no key attestation', () => Promise.resolve(undefined)],
    [
      'an attestation of another key',
      async () => keyAttestation(attester, [attester], [await walletKey('ES256')]),
    ],
    [
      'an attestation chained to no provider',
      async (key: WalletKey) => keyAttestation(stranger, [stranger], [key]),
    ],
    [
      'an attestation without the storage level',
      async (key: WalletKey) =>
        keyAttestation(attester, [attester], [key], { key_storage: ['iso_18045_basic'] }),
    ],
    [
      'an attestation for another nonce',
      async (key: WalletKey) => keyAttestation(attester, [attester], [key], { nonce: 'another' }),
    ],
    [
      'an expired attestation',
      async (key: WalletKey) =>
        keyAttestation(attester, [attester], [key], { exp: Math.floor(Date.now() / 1000) - 600 }),
    ],
  ])('refuses a proof with %s as invalid_proof, issuing nothing', async (_, make) => {
    const key = await walletKey('ES256');
    const { token, offerId } = await tokenFor(keyBadge);
    const answer = await requestCredential(token, [await proofWith(key, await make(key))]);
    expect({ status: answer.status, error: answer.body.error }).toEqual({
      status: 400,
      error: 'invalid_proof',
    });
    expect((await offerRow(service.dataSource, offerId)).status).toBe('accepted');
  });

  it('takes each notification event once per credential and refuses a repeat', async () => {
    const key = await walletKey('ES256');
    const { token, offerId } = await tokenFor(sdJwtBadge);
    const issued = await requestCredential(token, [await proofWith(key, undefined)], sdJwtBadge.id);
    const notificationId = issued.body.notification_id as string;
    const notify = (event: string) =>
      service.request<Json>('/ctrl/oid4vci/keys/notification', {
        method: 'POST',
        as: 'anonymous',
        headers: { authorization: `Bearer ${token}` },
        body: { notification_id: notificationId, event },
      });
    expect((await notify('credential_accepted')).status).toBe(204);
    const repeat = await notify('credential_accepted');
    expect({ status: repeat.status, error: repeat.body.error }).toEqual({
      status: 400,
      error: 'invalid_notification_request',
    });
    expect((await notify('credential_deleted')).status).toBe(204);
    const events = await service.dataSource.query<{ type: string }[]>(
      `SELECT type FROM webhook_event WHERE type LIKE 'oid4vci.credential.%' AND body::jsonb->'data'->>'offerId' = $1`,
      [offerId],
    );
    expect(events.map((event) => event.type).sort()).toEqual([
      'oid4vci.credential.accepted',
      'oid4vci.credential.deleted',
    ]);
  });

  describe('with DPoP server nonces required', () => {
    let strict: TestService;
    beforeAll(async () => {
      strict = await startTestService({ env: { DPOP_NONCE_REQUIRED: 'true' } });
      fakeHolderIssuance(strict);
      await strict.client().createTenant({ id: 'strict', label: 'Strict' });
      await strict.client().createCredentialConfiguration('strict', sdJwtBadge);
      await strict.client().createWalletProvider('strict', { certificate: root.pem });
    });
    afterAll(() => strict.close());

    const strictIssuer = () => `${strict.publicBaseUrl}/ctrl/oid4vci/strict`;
    const newOffer = () =>
      insertOffer(strict, {
        tenantId: 'strict',
        configuration: sdJwtBadge,
        claims: { given_name: 'Ada' },
      });

    it('answers a proof without the nonce use_dpop_nonce with a DPoP-Nonce, and takes it with one', async () => {
      const key = await walletKey('ES256');
      const offer = await newOffer();
      const form = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': offer.preAuthorizedCode,
      };
      const htu = `${strictIssuer()}/token`;
      const first = await postForm(strict.url, '/ctrl/oid4vci/strict/token', form, {
        DPoP: await dpopProof(key, { htu }),
      });
      expect({ status: first.status, error: (first.body as Json).error }).toEqual({
        status: 400,
        error: 'use_dpop_nonce',
      });
      const serverNonce = first.headers.get('dpop-nonce');
      expect(serverNonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const wrong = await postForm(strict.url, '/ctrl/oid4vci/strict/token', form, {
        DPoP: await dpopProof(key, { htu, payload: { nonce: 'not-ours' } }),
      });
      expect((wrong.body as Json).error).toBe('use_dpop_nonce');
      expect((await offerRow(strict.dataSource, offer.id)).status).toBe('offered');
      // Wallet attestation is required here (a provider is listed): the nonce comes first all the same.
      const instance = await walletKey('ES256');
      const client = owfAttestedClient(await owfAttestation(attester, [attester], instance), [
        instance,
        key,
      ]);
      const metadata = await client.fetchAuthorizationServerMetadata(strictIssuer());
      // OWF's client retries with the DPoP-Nonce it was given.
      const { accessTokenResponse } = await client.retrievePreAuthorizedCodeAccessToken({
        authorizationServerMetadata: metadata!,
        preAuthorizedCode: offer.preAuthorizedCode,
        dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: key.publicJwk as never } },
      });
      expect(accessTokenResponse.token_type).toBe('DPoP');
    });
  });
});
