import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { contexts as citizenship } from '@digitalbazaar/citizenship-context';
import { base58 } from '@scure/base';
import { ed25519PrivateKey, ed25519Signer } from '../did/signer.js';
import { bundledContexts, contextsFromFolder } from './contexts.js';
import { createDocumentLoader } from './document-loader.js';
import { signCredential, verifyProofs } from './data-integrity.js';

/** The W3C vc-di-eddsa test vectors (test/vectors/vc-di-eddsa/SOURCE.md), reproduced exactly. */
const vectors = join(process.cwd(), 'test/vectors/vc-di-eddsa/TestVectors');
const json = (path: string) => JSON.parse(readFileSync(join(vectors, path), 'utf8')) as Json;
const text = (path: string) => readFileSync(join(vectors, path), 'utf8');
type Json = Record<string, unknown>;

/** The employment vector needs the citizenship context: added as an operator would, from a folder. */
function withOperatorContext(): Map<string, unknown> {
  const folder = mkdtempSync(join(tmpdir(), 'contexts-'));
  try {
    const url = 'https://w3id.org/citizenship/v4rc1';
    writeFileSync(
      join(folder, 'citizenship-v4rc1.jsonld'),
      JSON.stringify({ url, ...(citizenship.get(url) as Json) }),
    );
    return new Map([...bundledContexts(), ...contextsFromFolder(folder)]);
  } finally {
    rmSync(folder, { recursive: true });
  }
}

const documentLoader = createDocumentLoader(withOperatorContext());

/** A multibase Ed25519 key of the vectors: `z` + base58btc(2-byte multicodec + 32 bytes). */
function rawKey(multibase: string): Buffer {
  return Buffer.from(base58.decode(multibase.slice(1)).slice(2));
}

function signerOf(pair: { publicKeyMultibase: string; privateKeyMultibase: string }) {
  const did = `did:key:${pair.publicKeyMultibase}`;
  const key = ed25519PrivateKey(rawKey(pair.publicKeyMultibase), rawKey(pair.privateKeyMultibase));
  return ed25519Signer(`${did}#${pair.publicKeyMultibase}`, () => key);
}

const keyPair = json('keyPair.json') as { publicKeyMultibase: string; privateKeyMultibase: string };

describe('Data Integrity EdDSA: the published vectors', () => {
  it.each([
    ['eddsa-rdfc-2022', 'eddsa-rdfc-2022/signedDataInt.json'],
    ['eddsa-jcs-2022', 'eddsa-jcs-2022/signedJCS.json'],
  ] as const)(
    '%s: signing the unsigned credential gives the published proof',
    async (suite, file) => {
      const signed = await signCredential(json('unsigned.json'), {
        signer: signerOf(keyPair),
        cryptosuite: suite,
        date: new Date('2023-02-24T23:36:38Z'),
        documentLoader,
      });
      const expected = json(file);
      expect((signed.proof as Json).proofValue).toBe((expected.proof as Json).proofValue);
      expect(signed).toEqual({
        ...expected,
        proof: { ...(expected.proof as Json), created: '2023-02-24T23:36:38Z' },
      });
    },
  );

  it('the signatures are Ed25519 over the published hashes', () => {
    // From the spec's intermediate values, with node:crypto alone: the hashes of the canonical forms,
    // concatenated, are what the published signature signs.
    for (const [dir, suffix] of [
      ['eddsa-rdfc-2022', 'DataInt'],
      ['eddsa-jcs-2022', 'JCS'],
    ] as const) {
      const proofHash = createHash('sha256')
        .update(text(`${dir}/proofCanon${suffix}.txt`))
        .digest();
      const docHash = createHash('sha256')
        .update(text(`${dir}/canonDoc${suffix}.txt`))
        .digest();
      expect(proofHash.toString('hex')).toBe(text(`${dir}/proofHash${suffix}.txt`).trim());
      expect(docHash.toString('hex')).toBe(text(`${dir}/docHash${suffix}.txt`).trim());
      expect(Buffer.concat([proofHash, docHash]).toString('hex')).toBe(
        text(`${dir}/combinedHash${suffix}.txt`).trim(),
      );
    }
  });

  it.each([
    'eddsa-rdfc-2022/signedDataInt.json',
    'eddsa-rdfc-2022/employ/signedDataInt.json',
    'eddsa-jcs-2022/signedJCS.json',
    'Ed25519Signature2020/signedEdSig.json',
    'proof-set-chain/signedProofSet1.json',
    'proof-set-chain/signedProofSet2.json',
    'proof-set-chain/signedProofChain1.json',
    'proof-set-chain/signedProofChain2.json',
  ])('accepts %s', async (file) => {
    const results = await verifyProofs(json(file), documentLoader);
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((result) => !result.verified)).toEqual([]);
  });

  it.each([
    'eddsa-rdfc-2022/signedDataInt.json',
    'eddsa-jcs-2022/signedJCS.json',
    'Ed25519Signature2020/signedEdSig.json',
    'proof-set-chain/signedProofChain2.json',
  ])('refuses %s after any one field is changed', async (file) => {
    const original = json(file);
    const changes: [string, (document: Json) => void][] = [
      ['name', (document) => (document.name = 'Changed')],
      ['validFrom', (document) => (document.validFrom = '2024-01-01T00:00:00Z')],
      [
        'credentialSubject',
        (document) => ((document.credentialSubject as Json).id = 'did:example:x'),
      ],
      ['proof.created', (document) => (firstProof(document).created = '2023-02-24T23:36:39Z')],
      ['proofValue', (document) => flipProofValue(firstProof(document))],
    ];
    for (const [field, change] of changes) {
      const altered = structuredClone(original);
      change(altered);
      const results = await verifyProofs(altered, documentLoader);
      expect({ field, refused: results.some((result) => !result.verified) }).toEqual({
        field,
        refused: true,
      });
    }
  });

  it('refuses a chained proof whose previous proof is missing', async () => {
    const chain = json('proof-set-chain/signedProofChain2.json');
    const proofs = chain.proof as Json[];
    const last = proofs.find((proof) => proof.previousProof !== undefined)!;
    const results = await verifyProofs({ ...chain, proof: [last] }, documentLoader);
    expect(results).toEqual([
      expect.objectContaining({ verified: false, error: expect.stringMatching(/previousProof/) }),
    ]);
  });
});

function firstProof(document: Json): Json {
  return (Array.isArray(document.proof) ? document.proof[0] : document.proof) as Json;
}

function flipProofValue(proof: Json): void {
  const value = proof.proofValue as string;
  const last = value.at(-1) === '1' ? '2' : '1';
  proof.proofValue = value.slice(0, -1) + last;
}
