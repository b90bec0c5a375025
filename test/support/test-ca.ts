import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

// The library's types name the DOM's Crypto and CryptoKey, which Node's webcrypto implements.
x509.cryptoProvider.set(webcrypto as never);

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface ServerCertificate {
  /** PEM of the server's private key and of its certificate, as node:https takes them. */
  key: string;
  cert: string;
}

export interface TestCa {
  /** A PEM file of the CA's certificate, for OUTBOUND_CA_FILE. */
  caFile: string;
  /** A certificate for `localhost` and 127.0.0.1, signed by this CA. */
  serverCertificate(): Promise<ServerCertificate>;
}

/** A certificate authority made for one test file, trusted by nothing but what is told to. */
export async function createTestCa(): Promise<TestCa> {
  const caKeys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const name = `CN=Agent test CA ${crypto.randomUUID()}`;
  const caCertificate = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    keys: caKeys as never,
    signingAlgorithm: algorithm,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 86_400_000),
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
    ],
  });
  const caFile = join(mkdtempSync(join(tmpdir(), 'agent-test-ca-')), 'ca.pem');
  writeFileSync(caFile, caCertificate.toString('pem'));
  return {
    caFile,
    async serverCertificate() {
      const keys = await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
      const certificate = await x509.X509CertificateGenerator.create({
        subject: 'CN=localhost',
        issuer: caCertificate.subject,
        publicKey: keys.publicKey as never,
        signingKey: caKeys.privateKey as never,
        signingAlgorithm: algorithm,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + 86_400_000),
        extensions: [
          new x509.BasicConstraintsExtension(false),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'dns', value: 'localhost' },
            { type: 'ip', value: '127.0.0.1' },
          ]),
        ],
      });
      const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
      const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8)
        .toString('base64')
        .replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
      return { key, cert: certificate.toString('pem') };
    },
  };
}
