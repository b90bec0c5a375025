import { DateOnly, IssuerSigned } from '@owf/mdoc';
import { generateKeyPairSync, KeyObject, webcrypto } from 'node:crypto';
import { libraryKey, x509 } from '../../x509/x509.js';
import { type CertificatesService } from '../../certificates/certificates.service.js';
import { type DidService } from '../../did/did.service.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { type EcPublicJwk } from '../../jose/jwk.js';
import { HolderIssuanceService, type MdocRequest } from './holder-issuance.service.js';
import { type IssueRecorder } from './issue-recorder.js';

const now = Date.parse('2026-06-01T12:00:00Z');
const ns = 'org.iso.18013.5.1';
const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const holderJwk = () => p256().publicKey.export({ format: 'jwk' }) as EcPublicJwk;
const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** The tenant's key and a self-signed certificate of it, standing in for its document signer. */
async function documentSigner(): Promise<{ privateKey: KeyObject; chain: string[] }> {
  const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Document signer, C=DE',
    keys: libraryKey(keys),
    signingAlgorithm: algorithm,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
  });
  return {
    privateKey: KeyObject.from(keys.privateKey),
    chain: [Buffer.from(certificate.rawData).toString('base64')],
  };
}

/** The service over fakes: the tenant's ES256 key as a KeyObject, one revocation entry per mdoc. */
async function setUp() {
  const { privateKey, chain } = await documentSigner();
  const keyReads: unknown[] = [];
  const service = new HolderIssuanceService(
    {
      prepare: (issuance: unknown) => ({ issuance }),
      entriesAfter: () =>
        Promise.resolve([
          {
            statusListCredential: 'https://agent.example/ctrl/status-lists/acme/list-1',
            statusListIndex: '42',
          },
        ]),
    } as unknown as IssueRecorder,
    {
      es256PrivateKey: (tenantId: string, stored: unknown) => {
        keyReads.push([tenantId, stored]);
        return Promise.resolve(privateKey);
      },
    } as unknown as TenantKeys,
    {} as DidService,
    {} as CertificatesService,
    () => Promise.reject(new Error('no documents')),
    () => now,
  );
  return { service, keyReads, chain };
}

const request: MdocRequest = {
  tenantId: 'acme',
  offerId: 'offer-1',
  configurationId: 'mDL',
  credentialIssuer: 'https://agent.example/ctrl/oid4vci/acme',
  format: 'mso_mdoc',
  doctype: 'org.iso.18013.5.1.mDL',
  claims: { [ns]: { family_name: 'Mustermann', birth_date: '1963-08-12' } },
  expiresInSeconds: 3600,
  revocable: true,
};

describe('HolderIssuanceService: mdocs (ISO/IEC 18013-5, OpenID4VCI 1.0 appendix A.2)', () => {
  it('records an mdoc as its doctype, signed with ES256', async () => {
    const { service } = await setUp();
    const [prepared] = service.prepare(request, [{ jwk: holderJwk() }]);
    expect(prepared.issue).toMatchObject({
      issuance: {
        types: ['org.iso.18013.5.1.mDL'],
        cryptosuite: 'ES256',
        format: 'mso_mdoc',
        purposes: ['revocation'],
      },
    });
  });

  it('signs one IssuerSigned per holder: its key as deviceKey, typed elements, the validity asked for', async () => {
    const { service, keyReads, chain } = await setUp();
    const holders = [{ jwk: holderJwk() }, { jwk: holderJwk() }];
    const prepared = service.prepare(request, holders);
    const stored = { kid: 'es256-kid' } as never;
    const issued = await service.sign(request, prepared, [null, null], chain, stored);
    // The key the caller's statement read, once for the batch.
    expect(keyReads).toEqual([['acme', stored]]);
    for (const [n, { credential }] of issued.entries()) {
      const signed = IssuerSigned.fromEncodedForOid4Vci(credential as string);
      const mso = signed.issuerAuth.mobileSecurityObject;
      expect(mso.docType).toBe('org.iso.18013.5.1.mDL');
      expect(mso.validityInfo.validFrom.getTime()).toBe(now);
      expect(mso.validityInfo.validUntil.getTime()).toBe(now + 3_600_000);
      expect(Buffer.from(mso.deviceKeyInfo.deviceKey.x!).toString('base64url')).toBe(
        holders[n].jwk.x,
      );
      const items = signed.getIssuerNamespace(ns) ?? [];
      const birth = items.find((item) => item.elementIdentifier === 'birth_date');
      expect(birth?.elementValue).toBeInstanceOf(DateOnly);
    }
  });

  it('signs no mdoc without a document signer chain, nor for a key other than P-256', async () => {
    const { service, chain } = await setUp();
    const prepared = service.prepare(request, [{ jwk: holderJwk() }]);
    await expect(service.sign(request, prepared, [null])).rejects.toThrow(/document signer/);
    const okp = { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' } as const;
    const other = service.prepare(request, [{ jwk: okp }]);
    await expect(service.sign(request, other, [null], chain)).rejects.toThrow(/P-256/);
  });
});
