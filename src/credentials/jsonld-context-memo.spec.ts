import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import jsonld from 'jsonld';
import { bundledContexts } from './contexts.js';
import { createDocumentLoader } from './document-loader.js';
import { jsonLdContextMemo } from './jsonld-context-memo.js';

type Json = Record<string, unknown>;

const documentLoader = createDocumentLoader(bundledContexts());

/** Every JSON document with a context among the published test vectors the project reproduces. */
function vectors(folder = 'test/vectors'): [string, Json][] {
  return readdirSync(folder).flatMap((name): [string, Json][] => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return vectors(path);
    if (!name.endsWith('.json')) return [];
    const document = JSON.parse(readFileSync(path, 'utf8')) as Json;
    return '@context' in document ? [[path, document]] : [];
  });
}

const revocable = {
  '@context': [
    'https://www.w3.org/ns/credentials/v2',
    'https://www.w3.org/ns/credentials/examples/v2',
  ],
  id: 'urn:uuid:3978344f-8596-4c3a-a978-8fcaba3903c5',
  type: ['VerifiableCredential', 'AlumniCredential'],
  issuer: 'did:example:issuer',
  credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
  credentialStatus: {
    id: 'https://example.com/status/1#94567',
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: '94567',
    statusListCredential: 'https://example.com/status/1',
  },
};

/** Canonical N-Quads and the expanded form, or the error: what signing and verifying read. */
async function processed(document: Json): Promise<string> {
  try {
    const nquads = await jsonld.canonize(document, {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      documentLoader,
      safe: true,
    });
    return `${nquads}\n${JSON.stringify(await jsonld.expand(document, { documentLoader, safe: true }))}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

describe('the JSON-LD context memo', () => {
  it("gives every document exactly what jsonld's own processing gives", async () => {
    const documents: [string, Json][] = [
      ...vectors(),
      ['revocable', revocable],
      // A term the safe mode refuses: the refusal must come again from a kept context.
      [
        'undefined term',
        { ...revocable, credentialSubject: { id: 'did:example:x', unknownTerm: 1 } },
      ],
    ];
    expect(documents.length).toBeGreaterThan(20);
    for (const [name, document] of documents) {
      jsonLdContextMemo.setEnabled(false);
      const own = await processed(document);
      jsonLdContextMemo.setEnabled(true);
      const first = await processed(document);
      const again = await processed(document);
      expect({ name, first, again }).toEqual({ name, first: own, again: own });
    }
  });

  it('answers the contexts of a credential it has processed before', async () => {
    await processed(revocable);
    const before = jsonLdContextMemo.hits;
    await processed(revocable);
    // If jsonld stops taking its context processing from the module this wraps, nothing is kept.
    expect(jsonLdContextMemo.hits - before).toBeGreaterThan(3);
  });
});
