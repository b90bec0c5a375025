import { setGlobalConfig } from '@openid4vc/openid4vci';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { type JWK } from 'jose';
import { startTestService, type TestService } from './support/test-service.js';
import {
  independentVerifier,
  receiveCredentials,
  signedPayload,
} from './support/oid4vci-holder.js';
import { keyProof, walletKey, type WalletKey } from './support/oid4vci-wallet.js';

type Json = Record<string, unknown>;

const diploma = {
  id: 'Diploma',
  format: 'dc+sd-jwt',
  vct: 'https://university.example/credentials/diploma',
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['family_name'], mandatory: true },
    { path: ['degree', 'name'] },
  ],
  display: [{ name: 'Diploma', locale: 'en' }],
};
const alumni = {
  id: 'Alumni',
  format: 'ldp_vc',
  credentialDefinition: {
    '@context': [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
    type: ['VerifiableCredential', 'AlumniCredential'],
  },
  claims: [{ path: ['credentialSubject', 'alumniOf'], mandatory: true }],
};
const claims = { given_name: 'Erika', family_name: 'Mustermann', degree: { name: 'MSc' } };

/**
 * The whole OpenID4VCI pre-authorized flow with the real issuance: an API caller makes a configuration
 * and an offer; OWF's wallet library (@openid4vc/openid4vci 0.4), given only the offer's link, receives
 * SD-JWT VCs bound to its keys and a Data Integrity VC; @sd-jwt/sd-jwt-vc and @sd-jwt/jwt-status-list
 * check the SD-JWT VCs with public material only, before and after a revocation through the API.
 */
describe('OpenID4VCI issuance, end to end', () => {
  let service: TestService;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'univ', label: 'University of Examples' });
    for (const configuration of [diploma, alumni]) {
      const made = await service.request(
        '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
        {
          method: 'POST',
          headers: { 'x-tenant-id': 'univ' },
          body: configuration,
        },
      );
      expect(made.status).toBe(201);
    }
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  async function offer(body: Json): Promise<Json> {
    const made = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body,
    });
    expect(made.status).toBe(201);
    return made.body;
  }

  const api = <Body = Json>(path: string, body?: unknown) =>
    service.request<Body>(`/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body,
    });

  /**
   * A new offer redeemed by hand up to the credential request: its access token, and a proof by a new
   * ES256 key over a fresh nonce.
   */
  async function readyToRequest(): Promise<{ accessToken: string; jwt: string; key: WalletKey }> {
    const base = `${service.publicBaseUrl}/ctrl/oid4vci/univ`;
    const made = await offer({ credentialConfigurationId: 'Diploma', claims });
    const grants = (made.credentialOffer as { grants: Record<string, Json> }).grants;
    const code = grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'][
      'pre-authorized_code'
    ] as string;
    const token = (await (
      await fetch(`${base}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': code,
        }),
      })
    ).json()) as Json;
    const nonce = (await (await fetch(`${base}/nonce`, { method: 'POST' })).json()) as Json;
    const key = await walletKey('ES256');
    const jwt = await keyProof(key, { aud: base, nonce: nonce.c_nonce as string });
    return { accessToken: token.access_token as string, jwt, key };
  }

  it('sends a batch of two selectively disclosable SD-JWT VCs, each bound to its key, to a DPoP wallet that enters the transaction code; revocation shows in the public list', async () => {
    const made = await offer({ credentialConfigurationId: 'Diploma', claims, txCode: true });
    expect(made.credentialOfferUri).toMatch(/^openid-credential-offer:\/\/\?credential_offer_uri=/);
    const keys = [await walletKey('ES256'), await walletKey('ES256')];
    const received = await receiveCredentials(made.credentialOfferUri as string, keys, {
      txCode: made.txCode as string,
      dpopKey: await walletKey('ES256'),
    });
    expect(received.tokenType).toBe('DPoP');
    expect(received.credentials).toHaveLength(2);

    const verifier = independentVerifier();
    const indices: number[] = [];
    for (const [n, credential] of received.credentials.entries()) {
      expect(typeof credential).toBe('string');
      const sdJwt = credential as string;
      const { payload, header } = await verifier.verify(sdJwt);
      expect(header).toMatchObject({ typ: 'dc+sd-jwt', alg: 'ES256' });
      expect(payload).toMatchObject({
        iss: `${service.publicBaseUrl}/ctrl/oid4vci/univ`,
        vct: diploma.vct,
        cnf: { jwk: { kty: 'EC', crv: 'P-256', x: keys[n].publicJwk.x, y: keys[n].publicJwk.y } },
        ...claims,
      });
      // Every configured claim is a disclosure: the signed payload names none of them in the clear.
      const signed = signedPayload(sdJwt);
      expect(signed).not.toHaveProperty('given_name');
      expect(signed).not.toHaveProperty('family_name');
      expect(signed.degree).not.toHaveProperty('name');
      // The holder shows its given name alone.
      const presented = await verifier.present(sdJwt, { given_name: true });
      const shown = (await verifier.verify(presented)).payload;
      expect(shown.given_name).toBe('Erika');
      expect(shown).not.toHaveProperty('family_name');
      indices.push((payload.status as { status_list: { idx: number } }).status_list.idx);
    }
    expect(new Set(indices).size).toBe(2);

    const answer = await api<Json>(`/oid4vci/offers/${made.id as string}`);
    expect(answer.body).toMatchObject({ status: 'issued', credentialIds: expect.any(Array) });
    // The offer lists its credentials' ids in the order the wallet's proofs came.
    const [first] = answer.body.credentialIds as string[];
    const records = await api<{ content: Json[] }>('/credentials');
    expect(records.body.content).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: first,
          format: 'dc+sd-jwt',
          offerId: made.id,
          configurationId: 'Diploma',
        }),
      ]),
    );

    // Revoked through the API by its id: the public Token Status List shows it at once.
    const [one, other] = received.credentials as string[];
    const statusOf = (sdJwt: string) =>
      (
        signedPayload(sdJwt).status as {
          status_list: { idx: number; uri: string };
        }
      ).status_list;
    const revokedIndex = statusOf(one).idx;
    const revoked = await api('/credentials/status', {
      credentialId: first,
      credentialStatus: { statusPurpose: 'revocation' },
    });
    expect(revoked.status).toBe(204);
    const list = getListFromStatusListJWT(await (await fetch(statusOf(one).uri)).text());
    expect([list.getStatus(revokedIndex), list.getStatus(statusOf(other).idx)]).toEqual([1, 0]);
    await expect(verifier.verify(one)).rejects.toThrow(/Status is not valid/);
    await expect(verifier.verify(other)).resolves.toBeDefined();
  });

  it('sends one SD-JWT VC by a link that carries the offer, to a Bearer wallet without a transaction code', async () => {
    const made = await offer({ credentialConfigurationId: 'Diploma', claims, byValue: true });
    expect(made.credentialOfferUri).toMatch(/^openid-credential-offer:\/\/\?credential_offer=/);
    const key = await walletKey('ES256');
    const received = await receiveCredentials(made.credentialOfferUri as string, [key]);
    expect(received.tokenType).toBe('Bearer');
    const { payload } = await independentVerifier().verify(received.credentials[0] as string);
    expect(payload).toMatchObject({ given_name: 'Erika', degree: { name: 'MSc' } });
  });

  it('sends a Data Integrity VC whose subject is the holder DID, which the verify API checks and revocation fails', async () => {
    const made = await offer({
      credentialConfigurationId: 'Alumni',
      claims: { alumniOf: 'University of Examples' },
    });
    const key = await walletKey('ES256');
    const received = await receiveCredentials(made.credentialOfferUri as string, [key]);
    const credential = received.credentials[0] as Json;
    expect(credential).toMatchObject({
      type: ['VerifiableCredential', 'AlumniCredential'],
      credentialSubject: {
        id: expect.stringMatching(/^did:jwk:/),
        alumniOf: 'University of Examples',
      },
      proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022' },
    });
    // The holder's DID is a did:jwk of the key its proof was signed with.
    const subject = (credential.credentialSubject as { id: string }).id;
    const jwk = JSON.parse(
      Buffer.from(subject.slice('did:jwk:'.length), 'base64url').toString(),
    ) as JWK;
    expect(jwk).toEqual({ kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y });
    const verified = await api<Json>('/credentials/verify', { verifiableCredential: credential });
    expect(verified.status).toBe(200);
    expect(verified.body.verified).toBe(true);

    const [credentialId] = (await api<Json>(`/oid4vci/offers/${made.id as string}`)).body
      .credentialIds as string[];
    expect(credentialId).toBe(credential.id);
    const revoked = await api('/credentials/status', {
      credentialId,
      credentialStatus: { statusPurpose: 'revocation' },
    });
    expect(revoked.status).toBe(204);
    const after = await api<Json>('/credentials/verify', { verifiableCredential: credential });
    expect(after.body.verified).toBe(false);
  });

  it('answers more concurrent credential requests than the database pool has connections', async () => {
    const post = async (path: string, init: RequestInit) => {
      const response = await fetch(`${service.publicBaseUrl}/ctrl/oid4vci/univ/${path}`, {
        method: 'POST',
        ...init,
      });
      return { status: response.status, body: (await response.json()) as Json };
    };
    // Ready to ask: an accepted offer, a nonce and a proof each; then all at once (the pool has 10).
    const ready = await Promise.all(Array.from({ length: 24 }, () => readyToRequest()));
    const answers = await Promise.all(
      ready.map(({ accessToken, jwt }) =>
        post('credential', {
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ credential_configuration_id: 'Diploma', proofs: { jwt: [jwt] } }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ready.map(() => 200));
  });

  it('serves wallets built on the drafts: metadata at the appended well-known paths, and a single proof', async () => {
    for (const document of ['openid-credential-issuer', 'oauth-authorization-server']) {
      const inserted = await fetch(
        `${service.publicBaseUrl}/.well-known/${document}/ctrl/oid4vci/univ`,
      );
      const appended = await fetch(
        `${service.publicBaseUrl}/ctrl/oid4vci/univ/.well-known/${document}`,
      );
      expect(appended.status).toBe(200);
      // The same document; signed metadata is signed for each answer (ECDSA signatures differ).
      const unsigned = async (response: Response) => {
        const { signed_metadata: signed, ...rest } = (await response.json()) as Json;
        return { ...rest, signed: typeof signed };
      };
      expect(await unsigned(appended)).toEqual(await unsigned(inserted));
    }
    const { accessToken, jwt, key } = await readyToRequest();
    const answer = await fetch(`${service.publicBaseUrl}/ctrl/oid4vci/univ/credential`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        credential_configuration_id: 'Diploma',
        proof: { proof_type: 'jwt', jwt },
      }),
    });
    expect(answer.status).toBe(200);
    const { credentials } = (await answer.json()) as { credentials: { credential: string }[] };
    const { payload } = await independentVerifier().verify(credentials[0].credential);
    expect(payload.cnf).toEqual({
      jwk: { kty: 'EC', crv: 'P-256', x: key.publicJwk.x, y: key.publicJwk.y },
    });
  });
});
