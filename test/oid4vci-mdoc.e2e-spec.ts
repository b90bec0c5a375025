import { VerificationAssessmentId, type IssuerSignedDocument } from '@auth0/mdl';
import { setGlobalConfig } from '@openid4vc/openid4vci';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { exportJWK } from 'jose';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  handoverTranscript,
  issuedDocument,
  presentWithAuth0,
  verifiedWithAuth0,
} from './support/mdoc-holder.js';
import { startTestService, type TestService } from './support/test-service.js';
import { readFileSync } from 'node:fs';
import { createTestCa } from './support/test-ca.js';
import { CertificatesService } from '../src/certificates/certificates.service.js';

type Json = Record<string, unknown>;

const doctype = 'org.iso.18013.5.1.mDL';
const ns = 'org.iso.18013.5.1';
const mdl = {
  id: 'mDL',
  format: 'mso_mdoc',
  doctype,
  claims: [
    { path: [ns, 'family_name'], mandatory: true, display: [{ name: 'Family name' }] },
    { path: [ns, 'given_name'], mandatory: true },
    { path: [ns, 'birth_date'], mandatory: true },
    { path: [ns, 'document_number'] },
  ],
  display: [{ name: 'Mobile driving licence', locale: 'en' }],
  expiresInSeconds: 86_400,
};
const elements = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1963-08-12',
  document_number: 'D-1234567',
};

/** The MSO's own members as @auth0/mdl decodes them (maps for CBOR maps). */
interface Mso {
  docType: string;
  validityInfo: { signed: Date; validFrom: Date; validUntil: Date };
  deviceKeyInfo: { deviceKey: Map<number, unknown> };
  status?: Map<string, Map<string, unknown>>;
}

/** An OpenID4VP 1.0 session transcript (B.2.6.1) of a verifier of our choosing, for `nonce`. */
const transcriptFor = (nonce: string) =>
  handoverTranscript('x509_san_dns:verifier.example', nonce, 'https://verifier.example/response');

/** What an @auth0/mdl holder presents of an issued mdoc: `elements` of the mDL namespace. */
async function present(credential: string, key: WalletKey, elements: string[], transcript: Buffer) {
  return presentWithAuth0({
    credential,
    doctype,
    namespace: ns,
    elements,
    devicePrivateJwk: await exportJWK(key.privateKey),
    transcript,
  });
}

/** @auth0/mdl's refusal of a device signature (its check's code). */
const deviceRefusal = { code: VerificationAssessmentId.DEVICE_AUTH.DeviceSignatureValidity };

const msoOf = (document: IssuerSignedDocument) =>
  document.issuerSigned.issuerAuth.decodedPayload as unknown as Mso;

/** The Token Status List reference the MSO carries (`status.status_list`, with `idx` and `uri`). */
function statusOf(document: IssuerSignedDocument): { idx: number; uri: string } {
  const list = msoOf(document).status?.get('status_list');
  expect(list).toBeInstanceOf(Map);
  return { idx: list!.get('idx') as number, uri: list!.get('uri') as string };
}

/**
 * The tenant's OpenID4VCI issuer issues ISO/IEC 18013-5 mdocs (OpenID4VCI 1.0 appendix A.2): OWF's wallet
 * library (`@openid4vc/openid4vci` 0.4) receives them from an offer, and the independent @auth0/mdl
 * reads each IssuerSigned, presents chosen elements with the holder's key, and verifies the
 * DeviceResponse with its own Verifier trusting only the tenant's IACA (the service's authority).
 */
describe('OpenID4VCI mso_mdoc issuance', () => {
  let service: TestService;
  let iaca: string;
  /** A root the tests make, which signed none of the tenant's certificates. */
  let otherIaca: string;

  const api = <Body = Json>(path: string, body?: unknown, tenantId = 'dmv') =>
    service.request<Body>(`/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-tenant-id': tenantId },
      body,
    });

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'dmv', label: 'Driving licences of Examples' });
    const made = await api('/oid4vci/credential-configurations/create', mdl);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ format: 'mso_mdoc', doctype, signingAlgorithm: 'ES256' });
    const authority = await api<{ certificate: string }>('/certificates/authority');
    expect(authority.status).toBe(200);
    iaca = authority.body.certificate;
    otherIaca = readFileSync((await createTestCa()).caFile, 'utf8');
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service?.close();
  });

  /** An offer of the mDL with `claims`, as the API answers it. */
  const offer = (claims: Json) =>
    api<Json>('/oid4vci/offers', { credentialConfigurationId: 'mDL', claims });

  /** Mdocs received by OWF's wallet library, one per key, with the offer they came from. */
  async function receive(keys: WalletKey[]) {
    const made = await offer({ [ns]: elements });
    expect(made.status).toBe(201);
    const { credentials } = await receiveCredentials(made.body.credentialOfferUri as string, keys);
    expect(credentials).toHaveLength(keys.length);
    for (const credential of credentials) expect(credential).toMatch(/^[A-Za-z0-9_-]+$/);
    return { offerId: made.body.id as string, mdocs: credentials as string[] };
  }

  it('advertises the mDL by its doctype, cose_key and COSE ES256 (-7)', async () => {
    const response = await fetch(
      `${service.publicBaseUrl}/.well-known/openid-credential-issuer/ctrl/oid4vci/dmv`,
    );
    const metadata = (await response.json()) as {
      credential_configurations_supported: Record<string, Json>;
    };
    expect(metadata.credential_configurations_supported.mDL).toMatchObject({
      format: 'mso_mdoc',
      doctype,
      cryptographic_binding_methods_supported: ['cose_key'],
      credential_signing_alg_values_supported: [-7],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
      credential_metadata: { claims: mdl.claims },
    });
  });

  it('issues an mDL that @auth0/mdl presents and verifies through the tenant’s IACA, elements typed as offered', async () => {
    const key = await walletKey('ES256');
    const { offerId, mdocs } = await receive([key]);
    const transcript = transcriptFor('nonce-1');
    const presented = await present(mdocs[0], key, ['family_name', 'birth_date'], transcript);
    const verified = await verifiedWithAuth0(presented, transcript, [iaca]);
    expect(verified.docType).toBe(doctype);
    const disclosed = verified.getIssuerNameSpace(ns);
    expect(Object.keys(disclosed).sort()).toEqual(['birth_date', 'family_name']);
    expect(disclosed.family_name).toBe('Mustermann');
    // A full-date (tag 1004) reads as @auth0/mdl's DateOnly, never as the string it was offered as.
    expect(disclosed.birth_date).toBeInstanceOf(Date);
    expect(Object.prototype.toString.call(disclosed.birth_date)).toBe('[object DateOnly]');
    expect((disclosed.birth_date as Date).toISOString()).toBe('1963-08-12');

    // Every offered element is in the IssuerSigned; validity is the configuration's day.
    const issued = issuedDocument(mdocs[0], doctype);
    expect(issued.getIssuerNameSpace(ns)).toMatchObject({
      family_name: 'Mustermann',
      given_name: 'Erika',
      document_number: 'D-1234567',
    });
    // Signed under the tenant's document signer (its certificate first in the x5chain).
    const [documentSigner] = (await service.app
      .get(CertificatesService)
      .documentSignerChain('dmv'))!;
    expect(Buffer.from(issued.issuerSigned.issuerAuth.certificate.rawData).toString('base64')).toBe(
      documentSigner,
    );
    const { validityInfo } = msoOf(issued);
    expect(validityInfo.validUntil.getTime() - validityInfo.validFrom.getTime()).toBe(86_400_000);

    // Another holder key, or another transcript, does not verify.
    const other = await walletKey('ES256');
    const forged = await present(mdocs[0], other, ['family_name'], transcript);
    await expect(verifiedWithAuth0(forged, transcript, [iaca])).rejects.toMatchObject(
      deviceRefusal,
    );
    await expect(
      verifiedWithAuth0(presented, transcriptFor('nonce-2'), [iaca]),
    ).rejects.toMatchObject(deviceRefusal);

    // The offer and the credential's record say mso_mdoc and the doctype.
    const read = await api<Json>(`/oid4vci/offers/${offerId}`);
    expect(read.body).toMatchObject({ status: 'issued', format: 'mso_mdoc', doctype });
    const [credentialId] = read.body.credentialIds as string[];
    const record = await api<Json>(`/credentials/${encodeURIComponent(credentialId)}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      format: 'mso_mdoc',
      doctype,
      types: [doctype],
      cryptosuite: 'ES256',
      configurationId: 'mDL',
      offerId,
    });
  });

  it('is refused by @auth0/mdl’s verifier trusting another IACA', async () => {
    const key = await walletKey('ES256');
    const { mdocs } = await receive([key]);
    const transcript = transcriptFor('nonce-3');
    const presented = await present(mdocs[0], key, ['family_name'], transcript);
    await expect(verifiedWithAuth0(presented, transcript, [otherIaca])).rejects.toMatchObject({
      code: VerificationAssessmentId.ISSUER_AUTH.IssuerCertificateValidity,
    });
    // The same presentation passes with the tenant's IACA: the anchor alone made the difference.
    await expect(verifiedWithAuth0(presented, transcript, [iaca])).resolves.toBeDefined();
  });

  it('revokes an mdoc through POST /credentials/status: its MSO’s entry flips in the status list token', async () => {
    const { offerId, mdocs } = await receive([await walletKey('ES256')]);
    const status = statusOf(issuedDocument(mdocs[0], doctype));
    expect(status.uri).toMatch(
      new RegExp(`^${service.publicBaseUrl}/ctrl/status-lists/dmv/[0-9a-f-]+/token$`),
    );
    const listed = async () =>
      getListFromStatusListJWT(await (await fetch(status.uri)).text()).getStatus(status.idx);
    expect(await listed()).toBe(0);
    const [credentialId] = (await api<Json>(`/oid4vci/offers/${offerId}`)).body
      .credentialIds as string[];
    const suspended = await api('/credentials/status', {
      credentialId,
      credentialStatus: { statusPurpose: 'suspension' },
    });
    expect(suspended.status).toBe(400);
    const revoked = await api('/credentials/status', {
      credentialId,
      credentialStatus: { statusPurpose: 'revocation' },
    });
    expect(revoked.status).toBe(204);
    expect(await listed()).toBe(1);
    const record = await api<Json>(`/credentials/${encodeURIComponent(credentialId)}`);
    expect(record.body).toMatchObject({ state: 'revoked' });
  });

  it('gives each mdoc of a batch its own device key and salts', async () => {
    const keys = [await walletKey('ES256'), await walletKey('ES256')];
    const { mdocs } = await receive(keys);
    const [one, two] = mdocs.map((issued) => issuedDocument(issued, doctype));
    const deviceX = (document: IssuerSignedDocument) =>
      Buffer.from(msoOf(document).deviceKeyInfo.deviceKey.get(-2) as Uint8Array).toString(
        'base64url',
      );
    expect([deviceX(one), deviceX(two)]).toEqual(keys.map((key) => key.publicJwk.x));
    const salts = (document: IssuerSignedDocument) =>
      document.issuerSigned.nameSpaces[ns].map((item) => Buffer.from(item.random).toString('hex'));
    const all = [...salts(one), ...salts(two)];
    expect(all).toHaveLength(8);
    expect(new Set(all).size).toBe(8);
    for (const salt of all) expect(salt.length).toBeGreaterThanOrEqual(32);
    expect(statusOf(one).idx).not.toBe(statusOf(two).idx);
  });

  it('refuses an offer whose element has the wrong type, naming the element, and offers nothing', async () => {
    const before = await api<{ totalElements: number }>('/oid4vci/offers');
    const refused = await offer({ [ns]: { ...elements, birth_date: 19630812 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify(refused.body)).toContain('birth_date');
    const after = await api<{ totalElements: number }>('/oid4vci/offers');
    expect(after.body.totalElements).toBe(before.body.totalElements);
    // An element the configuration does not describe, and a namespace that is not an object.
    expect((await offer({ [ns]: { ...elements, portrait: 'x' } })).status).toBe(400);
    expect((await offer({ [ns]: 'Mustermann' })).status).toBe(400);
  });

  it('refuses configurations an mdoc cannot be, each field named', async () => {
    const refused = await api<{ errors: { field: string }[] }>(
      '/oid4vci/credential-configurations/create',
      {
        id: 'Bad',
        format: 'mso_mdoc',
        vct: 'https://x.example',
        signingAlgorithm: 'EdDSA',
        claims: [{ path: ['family_name'] }],
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error) => error.field).sort()).toEqual([
      'claims.0.path',
      'doctype',
      'signingAlgorithm',
      'vct',
    ]);
  });

  it('binds mdocs to P-256 keys only: an EdDSA proof is invalid_proof and nothing is issued', async () => {
    const made = await offer({ [ns]: elements });
    await expect(
      receiveCredentials(made.body.credentialOfferUri as string, [await walletKey('EdDSA')]),
    ).rejects.toThrow();
    const read = await api<Json>(`/oid4vci/offers/${made.body.id as string}`);
    expect(read.body).toMatchObject({ status: 'accepted', credentialIds: [] });
  });
});
