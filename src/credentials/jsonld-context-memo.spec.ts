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

/** Canonical N-Quads (as the cryptosuites ask: directions as datatypes) and the expanded form. */
async function processed(document: Json, safe = true): Promise<string> {
  try {
    const nquads = await jsonld.canonize(document, {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      rdfDirection: 'i18n-datatype',
      documentLoader,
      safe,
    });
    return `${nquads}\n${JSON.stringify(await jsonld.expand(document, { documentLoader, safe }))}`;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const v2 = 'https://www.w3.org/ns/credentials/v2';
const examples = 'https://www.w3.org/ns/credentials/examples/v2';
const subject = (claims: Json): Json => ({
  ...revocable,
  credentialSubject: { id: 'did:example:s', ...claims },
});
const withContext = (context: unknown[], claims: Json): Json => ({
  ...subject(claims),
  '@context': context,
});

/** Documents where sharing a context, a copy or a key would show: each must come out as jsonld's own. */
const edgeCases: [string, Json][] = [
  ['revocable', revocable],
  // A direction in the active context: jsonld's copies drop it on the way down.
  [
    'direction',
    withContext([v2, examples, { '@direction': 'rtl', nick: 'https://example.org/nick' }], {
      nick: 'abc',
    }),
  ],
  // A list of URLs and a string that joins them: never the same key.
  ['url list', withContext([v2, v2, examples], {})],
  ['joined urls', withContext([v2, `${v2}\n${examples}`], {})],
  // Type-scoped contexts that report on processing (safe mode refuses them).
  [
    'reserved in a type scope',
    withContext(
      [v2, { Thing: { '@id': 'https://example.org/Thing', '@context': { '@reserved': 'x' } } }],
      { type: 'Thing' },
    ),
  ],
  [
    'relative vocab in a type scope',
    withContext(
      [v2, { Thing: { '@id': 'https://example.org/Thing', '@context': { '@vocab': 'rel#' } } }],
      { type: 'Thing', name: 'n' },
    ),
  ],
  // A protected term redefined.
  [
    'protected redefinition',
    withContext([v2, { VerifiableCredential: 'https://example.org/VC' }], {}),
  ],
  // A property-scoped context with a typed node inside.
  [
    'property scope',
    withContext(
      [
        v2,
        examples,
        { p: { '@id': 'https://example.org/p', '@context': { q: 'https://example.org/q' } } },
      ],
      { p: { type: 'ExampleAlumniCredential', q: 'x' } },
    ),
  ],
  // A node that resets its context.
  [
    'null context',
    { ...revocable, credentialSubject: { '@context': null, '@id': 'did:example:s' } },
  ],
  // Lists whose first context sets `@propagate`, at the top and in a type scope with a node below.
  [
    'propagate first',
    withContext([v2, { '@propagate': true, nick: 'https://example.org/nick' }, examples], {
      nick: 'x',
    }),
  ],
  [
    'propagating type scope',
    withContext(
      [
        v2,
        {
          Thing: {
            '@id': 'https://example.org/Thing',
            '@context': [
              { '@propagate': true, a: 'https://example.org/a' },
              { b: 'https://example.org/b' },
            ],
          },
        },
      ],
      { type: 'Thing', a: { b: 'deep', a: 'deeper' } },
    ),
  ],
  [
    'propagate later',
    withContext([v2, { a: 'https://example.org/a' }, { '@propagate': false }], { a: 1 }),
  ],
  // A reset inside a type-scoped list, and a list inside a list (which jsonld refuses).
  [
    'reset in a type scope',
    {
      '@context': {
        '@version': 1.1,
        T: { '@id': 'http://example.org/T', '@context': [null, { x: 'http://example.org/x' }] },
      },
      '@type': 'T',
      x: { x: 'v' },
    },
  ],
  ['nested list', withContext([v2, [examples]], {})],
  // A term safe mode refuses while expanding.
  ['undefined term', subject({ unknownTerm: 1 })],
];

describe('the JSON-LD context memo', () => {
  // First in the file: jsonld must not have processed the credentials context before.
  it("keeps one context's refusal from the contexts before it in the list", async () => {
    // Refused in a list that goes to jsonld whole, then in one processed one context at a time.
    for (const refused of [
      withContext([v2, { '@reserved': 'x' }, { '@propagate': true }], {}),
      withContext([v2, { '@reserved': 'x' }], {}),
    ])
      expect(await processed(refused)).toMatch(/^error: Safe mode validation error/);
    // jsonld 9 alone kept the refusal with the credentials context and refused this too.
    expect(await processed(revocable)).not.toMatch(/^error/);
  });

  it("gives every document exactly what jsonld's own processing gives", async () => {
    const documents = [...vectors(), ...edgeCases];
    expect(documents.length).toBeGreaterThan(30);
    try {
      for (const safe of [false, true]) {
        for (const [name, document] of documents) {
          jsonLdContextMemo.setEnabled(false);
          const own = await processed(document, safe);
          jsonLdContextMemo.setEnabled(true);
          const first = await processed(document, safe);
          const again = await processed(document, safe);
          expect({ name, safe, first, again }).toEqual({ name, safe, first: own, again: own });
        }
      }
    } finally {
      jsonLdContextMemo.setEnabled(true);
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
