import { KeyObject } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { type PublicJwk } from '../../src/jose/jwk.js';
import { elementValues } from '../../src/mdoc/elements.js';
import { issueMdoc } from '../../src/mdoc/issue-mdoc.js';
import { type TestCertificate } from './x509-test-pki.js';

export const mdlDoctype = 'org.iso.18013.5.1.mDL';
export const isoNamespace = 'org.iso.18013.5.1';
const day = 86_400_000;

/** A holder's device key (P-256), both halves as JWKs. */
export interface DeviceKey {
  privateJwk: JWK;
  publicJwk: JWK;
}

export async function deviceKey(): Promise<DeviceKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateJwk: await exportJWK(privateKey), publicJwk: await exportJWK(publicKey) };
}

export interface TestMdocOptions {
  doctype?: string;
  family?: string;
  validUntil?: Date;
  status?: { idx: number; uri: string };
}

/**
 * An mDL's `IssuerSigned` (base64url) for `device`, signed by `signer` (a document signer certificate
 * the test made, its chain that one certificate): family_name, given_name and birth_date (full-date).
 */
export async function testMdoc(
  device: DeviceKey,
  signer: TestCertificate,
  options: TestMdocOptions = {},
): Promise<string> {
  const typed = elementValues({
    [isoNamespace]: {
      family_name: options.family ?? 'Mustermann',
      given_name: 'Erika',
      birth_date: '1963-08-12',
    },
  });
  if (!('values' in typed)) throw new Error('element values refused');
  return issueMdoc(
    {
      doctype: options.doctype ?? mdlDoctype,
      namespaces: typed.values,
      deviceKey: device.publicJwk as PublicJwk,
      signed: new Date(Date.now() - 2 * day),
      validFrom: new Date(Date.now() - 2 * day),
      validUntil: options.validUntil ?? new Date(Date.now() + 30 * day),
      ...(options.status === undefined ? {} : { status: options.status }),
    },
    { privateKey: KeyObject.from(signer.keys.privateKey), chain: [signer.base64] },
  );
}
