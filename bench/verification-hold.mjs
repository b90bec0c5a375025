// @ts-check
// npm run bench:verification-hold: how long the costliest verification the limits allow holds the event
// loop (docs/performance.md, "Bounded verification"). Builds documents at the limits of
// src/credentials/verification-limits.ts in the shapes that cost JSON-LD and RDF canonicalization the
// most, runs the CPU path of a verification on them (limit check, safe-mode expansion, every proof
// with eddsa-rdfc-2022) in this process, and reports per shape the whole time and the longest gap
// between two ticks of a 1 ms timer: what any other request would have waited at worst.
import { generateKeyPairSync } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import jsonld from 'jsonld';
import { root } from './settings.mjs';

const compiled = (path) => import(pathToFileURL(join(root, 'dist/src', path)).href);
const { bundledContexts } = await compiled('credentials/contexts.js');
const { createDocumentLoader } = await compiled('credentials/document-loader.js');
const { verifyProofs } = await compiled('credentials/data-integrity.js');
const { ed25519DidKey } = await compiled('did/did-key.js');
const { documentLimitErrors, verificationLimits } = await compiled(
  'credentials/verification-limits.js',
);

const repetitions = Number(process.env.BENCH_REPETITIONS ?? 7);
const documentLoader = createDocumentLoader(bundledContexts());
const publicKey = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '';
const { did, publicKeyMultibase } = ed25519DidKey(Buffer.from(publicKey, 'base64url'));

/** A credential with `subject`, and as many eddsa-rdfc-2022 proofs as allowed (their values are not signatures: each is canonicalized all the same). */
function credential(subject, proofs = verificationLimits.proofs) {
  return {
    '@context': [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
    type: ['VerifiableCredential'],
    issuer: did,
    credentialSubject: subject,
    proof: Array.from({ length: proofs }, (_, n) => ({
      id: `urn:proof:${n}`,
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      verificationMethod: `${did}#${publicKeyMultibase}`,
      proofPurpose: 'assertionMethod',
      created: '2026-01-01T00:00:00Z',
      proofValue: `z${'3'.repeat(87)}`,
    })),
  };
}

/** As many copies of `item` in one array as the value limit leaves room for. */
function fill(valuesPerItem, item) {
  const room = verificationLimits.documentValues - 60;
  return Array.from({ length: Math.floor(room / valuesPerItem) }, (_, n) => item(n));
}

const shapes = {
  'flat claims (no blank nodes)': () =>
    credential(Object.fromEntries(fill(1, (n) => [`claim${n}`, `value ${n}`]))),
  'identical objects, one array': () => credential({ items: fill(2, () => ({ a: 'x' })) }),
  'identical nested objects': () => credential({ items: fill(3, () => ({ a: { b: 'x' } })) }),
  'distinct nested objects': () => credential({ items: fill(3, (n) => ({ a: { b: `x${n}` } })) }),
  'identical empty objects': () => credential({ items: fill(1, () => ({})) }),
  'the README example, one proof': () =>
    credential({ id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' }, 1),
};

/** The verification's CPU path, and the longest the event loop waited meanwhile. */
async function measure(document) {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  await sleep(5);
  last = performance.now();
  longest = 0;
  const started = performance.now();
  if (documentLimitErrors(document, 'verifiableCredential').length > 0) {
    throw new Error('the document is beyond a limit');
  }
  await jsonld.expand(document, { documentLoader, safe: true });
  await verifyProofs(document, documentLoader);
  const total = performance.now() - started;
  longest = Math.max(longest, performance.now() - last);
  clearInterval(timer);
  return { total, longest };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// Warm up the JIT on the example first, as a running service would be.
for (let n = 0; n < 30; n++) await measure(shapes['the README example, one proof']());
const rows = [];
for (const [name, make] of Object.entries(shapes)) {
  const document = make();
  const runs = [];
  for (let n = 0; n < repetitions; n++) runs.push(await measure(document));
  rows.push({
    shape: name,
    values: countValues(document),
    kB: (JSON.stringify(document).length / 1024).toFixed(1),
    proofs: document.proof.length,
    'total ms (median)': median(runs.map((run) => run.total)).toFixed(0),
    'longest hold ms (min)': Math.min(...runs.map((run) => run.longest)).toFixed(0),
    'longest hold ms (median)': median(runs.map((run) => run.longest)).toFixed(0),
    'longest hold ms (max)': Math.max(...runs.map((run) => run.longest)).toFixed(0),
  });
}
console.table(rows);

function countValues(value) {
  let count = 1;
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) count += countValues(child);
  }
  return count;
}
