// @ts-check
// The mdoc credential endpoint's baseline: a bare node:http server, no framework, no database, no access
// token, that does the essential work of the credential endpoint for one mDL: checks the proof JWT (jose:
// signature, typ, aud, nonce, iat), types the elements and issues the mdoc with the service's compiled
// toolbox over the same library (src/mdoc/elements.ts, src/mdoc/issue-mdoc.ts, @owf/mdoc): ES256 with a
// P-256 key in memory, its self-signed certificate as the x5chain, the proof's key as the device key, a
// random status index. bench/mdoc.mjs starts it as a separate process.
//
// Environment: PORT (0: any free port), ISSUER (the proofs' audience), NONCE (the one c_nonce they carry),
// CLAIMS (the offer's elements by namespace, JSON). Prints one JSON line {"port": n} on stdout once it
// listens.
// @peculiar/x509 (tsyringe) wants the reflect polyfill loaded first.
import 'reflect-metadata';
import { KeyObject, randomInt, randomUUID, webcrypto } from 'node:crypto';
import { createServer } from 'node:http';
import * as x509 from '@peculiar/x509';
import { holderKey, readJson, send } from './credential-endpoint-baseline.mjs';

// The compiled toolbox, typed by its sources (dist holds JavaScript without declarations, which the
// bench's typecheck would otherwise read as untyped JavaScript and check).
const compiled = (path) => import(new URL(`../dist/src/mdoc/${path}`, import.meta.url).href);
/** @type {typeof import('../src/mdoc/elements.js')} */
const { elementValues } = await compiled('elements.js');
/** @type {typeof import('../src/mdoc/issue-mdoc.js')} */
const { issueMdoc } = await compiled('issue-mdoc.js');

const {
  PORT = '0',
  ISSUER: baselineIssuer = 'https://baseline.invalid/issuer',
  NONCE: baselineNonce = 'baseline-nonce',
  CLAIMS = '{}',
} = process.env;
const day = 86_400_000;

// A document signer in memory: a P-256 key and its self-signed certificate (one in the chain, as the
// service's x5chain carries its document signer only).
const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const keys = /** @type {import("node:crypto").webcrypto.CryptoKeyPair} */ (
  await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])
);
const certificate = await x509.X509CertificateGenerator.createSelfSigned({
  name: 'CN=Baseline document signer',
  keys,
  signingAlgorithm: algorithm,
  notBefore: new Date(Date.now() - day),
  notAfter: new Date(Date.now() + 365 * day),
});
const signer = {
  privateKey: KeyObject.from(keys.privateKey),
  chain: [Buffer.from(certificate.rawData).toString('base64')],
};

const server = createServer((request, response) => {
  void (async () => {
    try {
      const body = await readJson(request);
      const [proof] = body.proofs.jwt;
      const deviceKey = holderKey(proof, baselineIssuer, baselineNonce);
      const typed = elementValues(JSON.parse(CLAIMS));
      if (!('values' in typed)) throw new Error('element values refused');
      const now = new Date();
      const credential = await issueMdoc(
        {
          doctype: 'org.iso.18013.5.1.mDL',
          namespaces: typed.values,
          deviceKey,
          signed: now,
          validFrom: now,
          validUntil: new Date(now.getTime() + 365 * day),
          status: { idx: randomInt(131_072), uri: `${baselineIssuer}/status` },
        },
        signer,
      );
      send(response, 200, { credentials: [{ credential }], notification_id: randomUUID() });
    } catch (error) {
      send(response, 400, { error: 'invalid_proof', error_description: String(error) });
    }
  })();
});

server.listen(Number(PORT), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' ? address?.port : 0 })}\n`,
  );
});
