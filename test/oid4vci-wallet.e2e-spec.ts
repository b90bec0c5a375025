import { setGlobalConfig, type IssuerMetadataResult } from '@openid4vc/openid4vci';
import { createHash } from 'node:crypto';
import { NoncesService } from '../src/oid4vci/wallet/nonces.service.js';
import { startTestService, type TestService } from './support/test-service.js';
import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';
import {
  fakeHolderIssuance,
  insertOffer,
  offerRow,
  type HolderIssuanceCall,
  type TestOffer,
} from './support/oid4vci-offers.js';
import {
  didJwkOf,
  didKeyOf,
  openid4vciWallet,
  thumbprintOf,
  walletKey,
  type WalletKey,
} from './support/oid4vci-wallet.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * The pre-authorized code flow of each tenant's OpenID4VCI issuer, walked by OWF's wallet library
 * (@openid4vc/openid4vci 0.4) over real HTTP: offer, metadata, token (with and without transaction
 * code, Bearer and DPoP), nonce, a batch of two proofs, credentials, notification (docs/oid4vci.md).
 */
describe('OpenID4VCI wallet flow', () => {
  let service: TestService;
  let issuer: string;
  let issued: HolderIssuanceCall[];
  const logs: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService({ logDestination: { write: (line) => logs.push(line) } });
    issued = fakeHolderIssuance(service);
    await service.client().createTenant({ id: 'acme', label: 'ACME Corp' });
    await service.client().createCredentialConfiguration('acme', sdJwtBadge);
    await service.client().createCredentialConfiguration('acme', ldpBadge);
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/acme`;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  /** The offer as a wallet scans it (§4.1.1, by value). */
  function offerLink(offer: TestOffer, configurationId: string): string {
    const grant: Json = { 'pre-authorized_code': offer.preAuthorizedCode };
    if (offer.txCode !== undefined)
      grant.tx_code = { length: offer.txCode.length, input_mode: 'numeric' };
    const credentialOffer = {
      credential_issuer: issuer,
      credential_configuration_ids: [configurationId],
      grants: { [preAuthorizedGrant]: grant },
    };
    return `openid-credential-offer://?credential_offer=${encodeURIComponent(JSON.stringify(credentialOffer))}`;
  }

  async function eventsOf(type: string): Promise<Json[]> {
    const rows = await service.dataSource.query<{ body: string }[]>(
      `SELECT body FROM webhook_event WHERE type = $1 ORDER BY created_at`,
      [type],
    );
    return rows.map((row) => (JSON.parse(row.body) as { data: Json }).data);
  }

  it('issues an SD-JWT VC batch to a Bearer wallet and takes its notification', async () => {
    const keys = [await walletKey('ES256'), await walletKey('EdDSA')];
    const wallet = openid4vciWallet(keys);
    const claims = { given_name: 'Ada', address: { locality: 'London' } };
    const offer = await insertOffer(service, {
      tenantId: 'acme',
      configuration: sdJwtBadge,
      claims,
    });
    secrets.push(offer.preAuthorizedCode);

    const credentialOffer = await wallet.resolveCredentialOffer(offerLink(offer, sdJwtBadge.id));
    const metadata: IssuerMetadataResult = await wallet.resolveIssuerMetadata(
      credentialOffer.credential_issuer,
    );
    const { accessTokenResponse } = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer,
      issuerMetadata: metadata,
    });
    secrets.push(accessTokenResponse.access_token);
    expect(accessTokenResponse).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      token_type: 'Bearer',
      expires_in: 300,
    });
    expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
      status: 'accepted',
      dpopJkt: null,
      accessTokenHash: createHash('sha256').update(accessTokenResponse.access_token).digest(),
    });
    expect(await eventsOf('oid4vci.offer.accepted')).toContainEqual({
      offerId: offer.id,
      configurationId: sdJwtBadge.id,
    });

    const { c_nonce: nonce } = await wallet.requestNonce({ issuerMetadata: metadata });
    secrets.push(nonce);
    const proofs = await Promise.all(
      keys.map(async (key) => {
        const { jwt } = await wallet.createCredentialRequestJwtProof({
          issuerMetadata: metadata,
          credentialConfigurationId: sdJwtBadge.id,
          signer: { method: 'jwk', publicJwk: key.publicJwk as never, alg: key.alg },
          nonce,
        });
        return jwt;
      }),
    );
    const before = issued.length;
    const answer = await wallet.retrieveCredentials({
      issuerMetadata: metadata,
      credentialConfigurationId: sdJwtBadge.id,
      proofs: { jwt: proofs },
      accessToken: accessTokenResponse.access_token,
    });
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers.get('cache-control')).toBe('no-store');
    const { credentials, notification_id: notificationId } = answer.credentialResponse;
    expect(credentials).toEqual([
      { credential: 'eyJhbGciOiJFUzI1NiJ9.e30.sig0~' },
      { credential: 'eyJhbGciOiJFUzI1NiJ9.e30.sig1~' },
    ]);

    // One issuance for both proved keys (public members only), signed once both records committed.
    expect(issued.length).toBe(before + 1);
    const call = issued[issued.length - 1];
    expect(call.recordedBeforeSigning).toBe(2);
    expect(call.request).toEqual({
      tenantId: 'acme',
      offerId: offer.id,
      configurationId: sdJwtBadge.id,
      credentialIssuer: issuer,
      format: 'dc+sd-jwt',
      vct: sdJwtBadge.vct,
      claims,
      selectivelyDisclosable: [['given_name'], ['address', 'locality']],
      signingAlgorithm: 'ES256',
      expiresInSeconds: null,
      revocable: true,
    });
    expect(call.holders).toEqual([
      {
        jwk: { kty: 'EC', crv: 'P-256', x: keys[0].publicJwk.x, y: keys[0].publicJwk.y },
        credentialId: expect.stringMatching(/^urn:uuid:/),
      },
      {
        jwk: { kty: 'OKP', crv: 'Ed25519', x: keys[1].publicJwk.x },
        credentialId: expect.stringMatching(/^urn:uuid:/),
      },
    ]);
    const row = await offerRow(service.dataSource, offer.id);
    expect(row).toMatchObject({ status: 'issued', claims: null, notificationId });
    // The offer names the ids the credentials were recorded under.
    expect(row.credentialIds).toEqual(call.holders.map((holder) => holder.credentialId));

    const notified = await wallet.sendNotification({
      issuerMetadata: metadata,
      notification: { notificationId: notificationId!, event: 'credential_accepted' },
      accessToken: accessTokenResponse.access_token,
    });
    expect(notified.response.status).toBe(204);
    expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
      notification: 'credential_accepted',
    });
    expect(await eventsOf('oid4vci.credential.accepted')).toContainEqual({
      offerId: offer.id,
      credentialIds: row.credentialIds,
    });
  });

  it('issues ldp_vc to a DPoP wallet that enters the transaction code and names its keys by DIDs', async () => {
    const dpopKey = await walletKey('ES256');
    const jwkHolder = await walletKey('ES256');
    const keyHolder = await walletKey('EdDSA');
    const dids = { [didJwkOf(jwkHolder)]: jwkHolder, [didKeyOf(keyHolder)]: keyHolder };
    const wallet = openid4vciWallet([dpopKey], dids);
    const offer = await insertOffer(service, {
      tenantId: 'acme',
      configuration: ldpBadge,
      claims: { name: 'Ada' },
      txCode: '493536',
    });
    secrets.push(offer.preAuthorizedCode);

    const credentialOffer = await wallet.resolveCredentialOffer(offerLink(offer, ldpBadge.id));
    const metadata = await wallet.resolveIssuerMetadata(credentialOffer.credential_issuer);
    const dpop = {
      signer: { method: 'jwk' as const, publicJwk: dpopKey.publicJwk as never, alg: 'ES256' },
    };
    const { accessTokenResponse, dpop: dpopAfter } =
      await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
        credentialOffer,
        issuerMetadata: metadata,
        txCode: '493536',
        dpop,
      });
    secrets.push(accessTokenResponse.access_token);
    expect(accessTokenResponse.token_type).toBe('DPoP');
    expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
      status: 'accepted',
      dpopJkt: await thumbprintOf(dpopKey),
      txCodeFailures: 0,
    });

    const { c_nonce: nonce } = await wallet.requestNonce({ issuerMetadata: metadata });
    const proofs: string[] = [];
    for (const [didUrl, key] of [
      [`${didJwkOf(jwkHolder)}#0`, jwkHolder],
      [`${didKeyOf(keyHolder)}#${didKeyOf(keyHolder).slice('did:key:'.length)}`, keyHolder],
    ] as [string, WalletKey][]) {
      const { jwt } = await wallet.createCredentialRequestJwtProof({
        issuerMetadata: metadata,
        credentialConfigurationId: ldpBadge.id,
        signer: { method: 'did', didUrl, alg: key.alg },
        nonce,
      });
      proofs.push(jwt);
    }
    const answer = await wallet.retrieveCredentials({
      issuerMetadata: metadata,
      credentialConfigurationId: ldpBadge.id,
      proofs: { jwt: proofs },
      accessToken: accessTokenResponse.access_token,
      dpop: dpopAfter ?? dpop,
    });
    expect(answer.response.status).toBe(200);
    expect(answer.credentialResponse.credentials).toHaveLength(2);
    const call = issued[issued.length - 1];
    expect(call.request).toMatchObject({
      format: 'ldp_vc',
      credentialDefinition: ldpBadge.credentialDefinition,
      claims: { name: 'Ada' },
      cryptosuite: 'eddsa-rdfc-2022',
      credentialIssuer: issuer,
    });
    expect(call.holders).toEqual([
      {
        jwk: expect.objectContaining({ kty: 'EC', x: jwkHolder.publicJwk.x }),
        did: didJwkOf(jwkHolder),
        credentialId: expect.stringMatching(/^urn:uuid:/),
      },
      {
        jwk: { kty: 'OKP', crv: 'Ed25519', x: keyHolder.publicJwk.x },
        did: didKeyOf(keyHolder),
        credentialId: expect.stringMatching(/^urn:uuid:/),
      },
    ]);

    const notified = await wallet.sendNotification({
      issuerMetadata: metadata,
      notification: {
        notificationId: answer.credentialResponse.notification_id!,
        event: 'credential_deleted',
        eventDescription: 'The user removed it.',
      },
      accessToken: accessTokenResponse.access_token,
      dpop: dpopAfter ?? dpop,
    });
    expect(notified.response.status).toBe(204);
    expect(await eventsOf('oid4vci.credential.deleted')).toContainEqual({
      offerId: offer.id,
      credentialIds: (await offerRow(service.dataSource, offer.id)).credentialIds,
    });
  });

  it('stores nonces by their hash only, and the purge deletes expired ones', async () => {
    const answer = await service.request<Json>('/ctrl/oid4vci/acme/nonce', {
      method: 'POST',
      as: 'anonymous',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const nonce = answer.body.c_nonce as string;
    secrets.push(nonce);
    const hash = createHash('sha256').update(nonce).digest();
    const [row] = await service.dataSource.query<{ expires: number }[]>(
      `SELECT extract(epoch FROM expires_at - now()) AS expires FROM oid4vci_nonce WHERE nonce_hash = $1`,
      [hash],
    );
    expect(Number(row.expires)).toBeGreaterThan(250);
    expect(Number(row.expires)).toBeLessThanOrEqual(300);
    await service.dataSource.query(
      `UPDATE oid4vci_nonce SET expires_at = now() - interval '1 second' WHERE nonce_hash = $1`,
      [hash],
    );
    expect(await service.app.get(NoncesService).purgeExpired()).toBeGreaterThanOrEqual(1);
    const left = await service.dataSource.query(
      `SELECT 1 FROM oid4vci_nonce WHERE nonce_hash = $1`,
      [hash],
    );
    expect(left).toEqual([]);
  });

  it('logs no code, token, nonce or claim', () => {
    expect(secrets.length).toBeGreaterThanOrEqual(5);
    const text = logs.join('\n');
    expect(text).toContain('/ctrl/oid4vci/acme/credential');
    for (const secret of [...secrets, 'Ada', 'London']) expect(text).not.toContain(secret);
  });
});
