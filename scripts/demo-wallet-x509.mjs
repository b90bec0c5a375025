// @ts-check
/**
 * The demo wallet's X.509 checks (HAIP 1.0): an `x5c` chain, leaf first and without the root, up to the
 * one root the person gave it with `--trust`, with @peculiar/x509 and jose.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { compactVerify, exportJWK, importJWK, importX509 } from 'jose';

x509.cryptoProvider.set(/** @type {any} */ (webcrypto));

/** @param {string} der standard base64, as in `x5c` */
export const certificateOf = (der) => new x509.X509Certificate(Buffer.from(der, 'base64'));

/** @param {x509.X509Certificate} leaf @param {'dns' | 'url'} type */
export const sanNames = (leaf, type) =>
  (leaf.getExtension(x509.SubjectAlternativeNameExtension)?.names.items ?? [])
    .filter((name) => name.type === type)
    .map((name) => name.value);

/**
 * The leaf of an `x5c` chain (leaf first, the root left out: HAIP 1.0) once each certificate is valid
 * now and signed by the next one, the last by the root in `trust` (a PEM file); else it throws. The
 * file is read only here, when there is a chain to check.
 * @param {string[]} x5c @param {string | undefined} trust
 */
export async function trustedLeaf(x5c, trust) {
  if (trust === undefined) throw new Error('an x5c chain to check: give --trust <root PEM file>');
  if (x5c.length === 0) throw new Error('an empty x5c');
  const root = new x509.X509Certificate(readFileSync(trust, 'utf8'));
  const chain = x5c.map(certificateOf);
  const issuers = [...chain.slice(1), root];
  for (const [index, certificate] of chain.entries()) {
    const issuer = issuers[index];
    const signed = await certificate.verify({ publicKey: issuer.publicKey }); // and valid now
    if (certificate.issuer !== issuer.subject || !signed)
      throw new Error(
        `x5c: ${certificate.subject} is not valid now or not issued by ${issuer.subject}`,
      );
  }
  if (!(await root.verify())) throw new Error(`the trusted root ${root.subject} is not valid now`);
  return chain[0];
}

/** @param {x509.X509Certificate} leaf */
export const leafJwk = async (leaf) => exportJWK(await importX509(leaf.toString('pem'), 'ES256'));

/**
 * What the wallet can say of a credential's signer: its `x5c` leaf, checked (chain to the root, the
 * leaf naming `iss` as a SAN URI, the signature by the leaf's key) when the wallet trusts a root.
 * @param {string} credential @param {string} iss @param {string | undefined} trust
 */
export async function signerOf(credential, iss, trust) {
  const jws = credential.split('~')[0];
  const { x5c } = JSON.parse(Buffer.from(jws.split('.')[0], 'base64url').toString('utf8'));
  if (!Array.isArray(x5c) || x5c.length === 0)
    return 'no x5c in its header (the issuer key is found by kid)';
  if (trust === undefined)
    return `signed by ${certificateOf(x5c[0]).subject} through x5c (not checked: no --trust root)`;
  const leaf = await trustedLeaf(x5c, trust);
  if (!sanNames(leaf, 'url').includes(iss)) throw new Error(`the x5c leaf does not name ${iss}`);
  await compactVerify(jws, await importJWK(await leafJwk(leaf), 'ES256'), {
    algorithms: ['ES256'],
  });
  return `signed by ${leaf.subject} through x5c (chain to the trusted root verified)`;
}
