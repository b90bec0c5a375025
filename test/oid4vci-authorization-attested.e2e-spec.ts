import {
  Oauth2ClientErrorResponseError,
  setGlobalConfig as setOauth2Config,
  type ClientAuthenticationCallback,
} from '@openid4vc/oauth2';
import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import {
  authorizeWallet,
  browserFlow,
  codeFlowClient,
  codeFlowKeys,
  erika,
  issueByCode,
  oauthError,
  personConfiguration,
} from './support/authorization-code-wallet.js';
import { oidcPath } from './support/browser.js';
import { independentVerifier } from './support/oid4vci-holder.js';
import { walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  attestationPop,
  owfAttestation,
  owfAttestedAuthentication,
} from './support/wallet-attestations.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';

const person = personConfiguration('Person');

/**
 * The authorization code flow (OpenID4VCI 1.0 §5, §6) with the wallet authenticated by its wallet
 * attestation at PAR and at the token endpoint, as HAIP 1.0 §4.3 asks (docs/wallet-providers.md): OWF's
 * wallet library makes the attestation's PoP, Erika logs in at the bundled realm by HTTP, the SD-JWT VC
 * is verified by @sd-jwt/sd-jwt-vc; and the refusals, each with nothing issued.
 */
describe('OpenID4VCI authorization code flow with a wallet attestation', () => {
  let service: TestService;
  let issuer: string;
  let attester: TestCertificate;
  let strangerAttester: TestCertificate;
  let instance: WalletKey;

  beforeAll(async () => {
    setOauth2Config({ allowInsecureUrls: true });
    setOid4vciConfig({ allowInsecureUrls: true });
    service = await startTestService();
    const client = service.client();
    await client.createTenant({ id: 'univ', label: 'University of Examples' });
    await client.createCredentialConfiguration('univ', person);
    issuer = `${service.publicBaseUrl}/ctrl/oid4vci/univ`;
    const root = await makeCertificate('Wallet provider CA', { ca: true });
    attester = await makeCertificate('Wallet attester', { issuer: root });
    const strangerRoot = await makeCertificate('Unknown provider CA', { ca: true });
    strangerAttester = await makeCertificate('Unknown attester', { issuer: strangerRoot });
    await client.createWalletProvider('univ', { certificate: root.pem });
    instance = await walletKey('ES256');
  });
  afterAll(async () => {
    setOauth2Config({ allowInsecureUrls: false });
    setOid4vciConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const asErika = () =>
    browserFlow(issuer, `${service.publicBaseUrl}${oidcPath}/auth?`, 'erika', 'erika');
  /** OWF's attestation authentication, the attestation by `by` for `clientId`. */
  const attested = async (
    clientId = codeFlowClient.clientId,
    by = attester,
  ): Promise<ClientAuthenticationCallback> =>
    owfAttestedAuthentication(await owfAttestation(by, [by], instance, { clientId }), [instance]);
  /** The wallet's own attestation with a PoP the test makes, its claims overridden. */
  const withPop = async (
    claims: Record<string, unknown>,
  ): Promise<ClientAuthenticationCallback> => {
    const attestation = await owfAttestation(attester, [attester], instance, {
      clientId: codeFlowClient.clientId,
    });
    const pop = await attestationPop(instance, issuer, claims);
    return ({ headers }) => {
      headers.set('OAuth-Client-Attestation', attestation);
      headers.set('OAuth-Client-Attestation-PoP', pop);
    };
  };

  const records = async () =>
    (await service.client().listCredentials('univ', { size: 100 })).content;
  const newOffer = () =>
    service.client().createOffer('univ', {
      credentialConfigurationId: 'Person',
      grant: 'authorization_code',
      claims: {},
    });

  /** The status and OAuth error PAR answered; nothing issued, the offer still open. */
  async function parRefusal(authentication: ClientAuthenticationCallback | undefined) {
    const before = (await records()).length;
    const made = await newOffer();
    const refusal = await authorizeWallet(
      asErika(),
      { link: made.credentialOfferUri },
      await codeFlowKeys(),
      authentication,
    ).then(
      () => 'no error',
      (error: unknown) =>
        error instanceof Oauth2ClientErrorResponseError
          ? {
              status: error.response.status,
              error: error.errorResponse.error,
              why: error.errorResponse.error_description,
            }
          : error,
    );
    expect((await records()).length).toBe(before);
    expect((await service.client().getOffer('univ', made.id)).status).toBe('offered');
    return refusal;
  }

  const refused = (why: RegExp) => ({
    status: 401,
    error: 'invalid_client',
    why: expect.stringMatching(why),
  });

  it('issues to the attested wallet: PAR and token request attested, Erika’s claims', async () => {
    const made = await newOffer();
    const keys = await codeFlowKeys();
    const issued = await issueByCode(
      asErika(),
      { link: made.credentialOfferUri, state: 'attested-1' },
      keys,
      await attested(),
    );
    if (issued.credential === undefined) throw new Error(`refused: ${String(issued.error)}`);
    expect(issued.token.token_type).toBe('DPoP');
    const { payload } = await independentVerifier().verify(issued.credential);
    expect(payload).toMatchObject({ iss: issuer, vct: person.vct, ...erika });
    expect(payload.cnf).toEqual({ jwk: expect.objectContaining({ x: keys.holder.publicJwk.x }) });
    const [record] = await records();
    expect(record).toMatchObject({ offerId: made.id, configurationId: 'Person' });
    expect(await service.client().getOffer('univ', made.id)).toMatchObject({
      status: 'issued',
      credentialIds: [record.id],
    });
  });

  it('refuses PAR without an attestation, the tenant listing a provider: 401 invalid_client', async () => {
    expect(await service.client().getWalletAttestationPolicy('univ')).toMatchObject({
      walletAttestation: 'required',
    });
    expect(await parRefusal(undefined)).toEqual(refused(/requires a wallet attestation/));
  });

  it('refuses PAR with an attestation from a provider the tenant does not list', async () => {
    const foreign = await attested(codeFlowClient.clientId, strangerAttester);
    expect(await parRefusal(foreign)).toEqual(refused(/x5c chain/));
  });

  it('refuses PAR whose client_id is not the attestation’s sub', async () => {
    const another = await attested('https://another-wallet.example');
    expect(await parRefusal(another)).toEqual(refused(/not the sub/));
  });

  it('refuses PAR with a stale PoP, and with a PoP for another audience', async () => {
    const stale = await withPop({ iat: Math.floor(Date.now() / 1000) - 600 });
    expect(await parRefusal(stale)).toEqual(refused(/iat too far/));
    const elsewhere = await withPop({ aud: 'https://other.example/issuer' });
    expect(await parRefusal(elsewhere)).toEqual(refused(/wrong aud/));
  });

  it('refuses the token request without attestation after an attested PAR; another client cannot use the code', async () => {
    const made = await newOffer();
    const before = (await records()).length;
    const authorized = await authorizeWallet(
      asErika(),
      { link: made.credentialOfferUri },
      await codeFlowKeys(),
      await attested(),
    );
    const code = authorized.back.searchParams.get('code')!;
    const unattested = authorized.redeem(code, undefined, ({ body }) => {
      body.client_id = codeFlowClient.clientId;
    });
    expect(await oauthError(unattested)).toBe('invalid_client');
    const otherClient = await attested('https://another-wallet.example');
    expect(await oauthError(authorized.redeem(code, undefined, otherClient))).toBe('invalid_grant');
    // The code was spent by the other client's try (RFC 6749 §4.1.2): the wallet cannot use it either.
    expect(await oauthError(authorized.redeem(code))).toBe('invalid_grant');
    expect((await records()).length).toBe(before);
    expect((await service.client().getOffer('univ', made.id)).status).toBe('offered');
  });
});
