import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import * as vc from '@digitalbazaar/vc';
import { createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import { bundledContexts } from '../src/credentials/contexts.js';
import { createDocumentLoader } from '../src/credentials/document-loader.js';
import {
  alumniCredential,
  issue,
  probeDuring,
  verifyCredential,
  verifyPath,
  type Json,
} from './support/credentials-harness.js';
import { startHttpOrigin, type TestOrigin } from './support/test-origin.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * An issuer elsewhere, made with Digital Bazaar's libraries (its own key, credential and status list),
 * publishing its list on its own HTTP origin: the service must fetch the list, check it and read the bit.
 */
describe('Status lists on other origins', () => {
  let relaxed: TestService;
  let server: TestOrigin;
  const documentLoader = createDocumentLoader(bundledContexts());

  async function makeIssuer() {
    const key = await Ed25519Multikey.generate();
    const did = `did:key:${key.publicKeyMultibase}`;
    const signer = { ...key.signer(), id: `${did}#${key.publicKeyMultibase}` };
    const suite = () => new DataIntegrityProof({ signer, cryptosuite: eddsaRdfc2022 });
    return {
      did,
      sign: (credential: Json) =>
        vc.issue({ credential: { ...credential, issuer: did }, suite: suite(), documentLoader }),
    };
  }

  type Issuer = Awaited<ReturnType<typeof makeIssuer>>;
  let issuer: Issuer;

  /** A signed list at `path`, with the given bits set, answered with `cacheControl`. */
  async function publishList(
    path: string,
    options: {
      set?: number[];
      purpose?: string;
      length?: number;
      by?: Issuer;
      cacheControl?: string;
      tamper?: (list: Json) => void;
    } = {},
  ): Promise<string> {
    const url = `${server.origin}${path}`;
    const list = await createList({ length: options.length ?? 131_072 });
    for (const index of options.set ?? []) list.setStatus(index, true);
    const unsigned = await createCredential({
      id: url,
      list,
      statusPurpose: options.purpose ?? 'revocation',
    });
    const signed = await (options.by ?? issuer).sign(unsigned);
    options.tamper?.(signed);
    server.routes.set(path, (response) => {
      response.writeHead(200, {
        'content-type': 'application/vc+ld+json',
        'cache-control': options.cacheControl ?? 'no-store',
      });
      response.end(JSON.stringify(signed));
    });
    return url;
  }

  /** A revocation entry at `index` of the list at `listUrl`. */
  function entryOf(listUrl: string, index = 7, purpose = 'revocation'): Json {
    return {
      id: `${listUrl}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: purpose,
      statusListIndex: String(index),
      statusListCredential: listUrl,
    };
  }

  /** A credential of `issuer` whose revocation entry is `index` in the list at `listUrl`. */
  function credentialFor(listUrl: string, index = 7, purpose = 'revocation'): Promise<Json> {
    return issuer.sign(
      alumniCredential({
        id: `urn:uuid:${crypto.randomUUID()}`,
        credentialStatus: entryOf(listUrl, index, purpose),
      }),
    );
  }

  async function statusDetails(service: TestService, credential: Json) {
    const answer = await verifyCredential(service, 'demo', credential);
    const details = (answer.body.problemDetails ?? []) as Json[];
    return {
      status: answer.status,
      details: details.map((one) => `${String(one.check)}: ${String(one.detail)}`),
    };
  }

  beforeAll(async () => {
    server = await startHttpOrigin();
    relaxed = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    await relaxed.client().createTenant({ id: 'demo', label: 'Demo' });
    await relaxed.client().createTenant({ id: 'other', label: 'Other' });
    issuer = await makeIssuer();
  });
  afterAll(async () => {
    await Promise.all([relaxed.close(), server.close()]);
  });

  it('verifies a credential from another issuer against its list, then sees it revoked', async () => {
    const url = await publishList('/lists/revocable');
    const credential = await credentialFor(url);
    expect(await statusDetails(relaxed, credential)).toEqual({ status: 200, details: [] });

    await publishList('/lists/revocable', { set: [7] });
    expect(await statusDetails(relaxed, credential)).toEqual({
      status: 422,
      details: ['status: the credential is revoked'],
    });
  });

  it('remembers a verified list for its max-age, and a no-store list not at all', async () => {
    const cached = await publishList('/lists/cached', { cacheControl: 'public, max-age=60' });
    const fresh = await publishList('/lists/fresh');
    for (const url of [cached, fresh]) {
      const credential = await credentialFor(url);
      for (let round = 0; round < 3; round++) {
        expect((await statusDetails(relaxed, credential)).status).toBe(200);
      }
    }
    expect([server.hits.get('/lists/cached'), server.hits.get('/lists/fresh')]).toEqual([1, 3]);
  });

  it.each<[string, () => Promise<string> | string, RegExp]>([
    [
      'signed by someone other than the issuer',
      async () => publishList('/lists/other', { by: await makeIssuer() }),
      /is issued by 'did:key:z6Mk\w+', not by the credential's issuer/,
    ],
    [
      'changed after it was signed',
      () =>
        publishList('/lists/tampered', {
          tamper: (list) => {
            const subject = list.credentialSubject as Json;
            subject.statusPurpose = 'suspension';
          },
        }),
      /does not verify: proof .*/,
    ],
    [
      'shorter than the specification allows',
      () => publishList('/lists/short', { length: 8_192 }),
      /8192 entries long, shorter than the 131072/,
    ],
    [
      'for another purpose',
      () => publishList('/lists/suspension', { purpose: 'suspension' }),
      /is for suspension, not revocation/,
    ],
    ['missing', () => `${server.origin}/lists/none`, /answered HTTP 404/],
    [
      'a redirect, which is not followed',
      () => {
        server.routes.set('/lists/moved', (response) => {
          response.writeHead(302, { location: '/lists/revocable' });
          response.end();
        });
        return `${server.origin}/lists/moved`;
      },
      /answered HTTP 302/,
    ],
    [
      'larger than the cap',
      () => {
        server.routes.set('/lists/huge', (response) => response.end(' '.repeat(65 * 1024)));
        return `${server.origin}/lists/huge`;
      },
      /larger than 65536 bytes/,
    ],
    [
      'not JSON',
      () => {
        server.routes.set('/lists/html', (response) => response.end('<html></html>'));
        return `${server.origin}/lists/html`;
      },
      /is not JSON/,
    ],
    [
      'on a link-local metadata address, even for development',
      () => 'http://169.254.169.254/latest/meta-data',
      /could not be fetched: 169\.254\.169\.254 is in a linkLocal range/,
    ],
  ])('fails the status check for a list %s', async (_name, listUrl, reason) => {
    const credential = await credentialFor(await listUrl());
    const { status, details } = await statusDetails(relaxed, credential);
    expect(status).toBe(422);
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(reason);
  });

  it("refuses a credential pointing at one of this service's lists that its issuer does not own", async () => {
    const ours = await issue(relaxed, 'demo', alumniCredential());
    const entry = ours.body.verifiableCredential.credentialStatus as Json;
    const borrowed = await credentialFor(String(entry.statusListCredential), 3);
    expect(await statusDetails(relaxed, borrowed)).toEqual({
      status: 422,
      details: [
        expect.stringMatching(
          /^status: the status list is issued by 'did:key:\w+', not by the credential's issuer$/,
        ),
      ],
    });
  });

  describe('one caller cannot stall the service through a status list', () => {
    /** A list whose proofValue is thousands of times an Ed25519 signature's 88 characters. */
    const withLongProof = (characters: number) => (list: Json) => {
      (list.proof as Json).proofValue = `z${'2'.repeat(characters)}`;
    };

    it('refuses a 250 kB list with an oversized proof unread, and remembers that it failed', async () => {
      const url = await publishList('/lists/bloated', { tamper: withLongProof(240_000) });
      const credential = await credentialFor(url);
      // Before: the proof was base58-decoded on the event loop for tens of seconds, on every request.
      const { result } = await probeDuring(relaxed, 'other', async () => [
        await statusDetails(relaxed, credential),
        await statusDetails(relaxed, credential),
      ]);

      expect(result).toEqual(
        Array.from({ length: 2 }, () => ({
          status: 422,
          details: [expect.stringMatching(/could not be fetched: .*larger than 65536 bytes/)],
        })),
      );
      expect(server.hits.get('/lists/bloated')).toBe(1);
    });

    it("checks a list's proof against the proof limits before verifying it", async () => {
      const url = await publishList('/lists/long-proof', { tamper: withLongProof(55_000) });
      const credential = await credentialFor(url);
      const { result } = await probeDuring(relaxed, 'other', () =>
        statusDetails(relaxed, credential),
      );

      expect(result).toEqual({
        status: 422,
        details: [
          expect.stringMatching(
            /does not verify: .*proof\.proofValue is longer than 100 characters/,
          ),
        ],
      });
    });

    it('fetches no list for a credential whose own proof failed', async () => {
      const url = await publishList('/lists/never-read');
      const credential = { ...(await credentialFor(url)), name: 'Changed after signing' };
      const answer = await verifyCredential(relaxed, 'demo', credential);

      expect(answer.status).toBe(422);
      expect(answer.body.checks).toEqual(['proof', 'issuer', 'validity']);
      expect((answer.body.problemDetails as Json[]).map((one) => one.check)).toEqual(['proof']);
      expect(server.hits.get('/lists/never-read')).toBeUndefined();
    });

    it('reads the entries of a list server that never answers at once, under one deadline', async () => {
      for (let n = 0; n < 8; n++) server.routes.set(`/lists/silent-${n}`, () => undefined);
      const credential = await issuer.sign(
        alumniCredential({
          credentialStatus: Array.from({ length: 8 }, (_, n) =>
            entryOf(`${server.origin}/lists/silent-${n}`),
          ),
        }),
      );
      const started = performance.now();
      // Before: one after another, 5 s each: 40 s.
      const { status, details } = await statusDetails(relaxed, credential);

      expect(performance.now() - started).toBeLessThan(20_000);
      expect(status).toBe(422);
      expect(details).toHaveLength(8);
      for (const detail of details) expect(detail).toMatch(/^status: .*within 5000 ms/);
    });

    it('refuses more status entries than the limit before fetching any', async () => {
      server.routes.set('/lists/silent', () => undefined);
      const withEntries = async (count: number) =>
        verifyCredential(
          relaxed,
          'demo',
          await issuer.sign(
            alumniCredential({
              credentialStatus: Array.from({ length: count }, (_, n) =>
                entryOf(`${server.origin}/lists/silent`, n),
              ),
            }),
          ),
        );
      // Before: one after another, 5 s each: a minute for 12, 40 minutes for the 500 that fit in 100 kB.
      const twelve = await withEntries(12);
      const fiveHundred = await withEntries(500);

      expectProblem(twelve, 400, 'CREDENTIAL_INVALID', verifyPath);
      expect(twelve.body.errors).toEqual([
        { field: 'verifiableCredential.credentialStatus', message: 'has more than 8 entries' },
      ]);
      expectProblem(fiveHundred, 400, 'VALIDATION_FAILED', verifyPath);
      expect(server.hits.get('/lists/silent')).toBeUndefined();
    });

    it('fetches a list once for concurrent verifications that need it', async () => {
      const url = await publishList('/lists/slow');
      const answer = server.routes.get('/lists/slow')!;
      // A slow list server: the verifications all arrive while the first fetch waits for it.
      server.routes.set(
        '/lists/slow',
        (response) => void setTimeout(() => answer(response), 2_000),
      );
      const credential = await credentialFor(url);
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => statusDetails(relaxed, credential)),
      );

      expect(answers).toEqual(Array.from({ length: 8 }, () => ({ status: 200, details: [] })));
      expect(server.hits.get('/lists/slow')).toBe(1);
    });
  });

  // Last: passport keeps one strategy per process, so the service started here takes over token checks.
  describe('by default', () => {
    let strict: TestService;
    beforeAll(async () => {
      strict = await startTestService();
      await strict.client().createTenant({ id: 'demo', label: 'Demo' });
    });
    afterAll(() => strict.close());

    it('fetches nothing over plain http or from loopback', async () => {
      const url = await publishList('/lists/strict');
      const port = new URL(server.origin).port;
      const before = server.hits.get('/lists/strict') ?? 0;
      const plain = await statusDetails(strict, await credentialFor(url));
      const loopbackName = await statusDetails(
        strict,
        await credentialFor(`https://localhost:${port}/lists/strict`),
      );
      expect(plain.details).toEqual([
        `status: the status list ${url} could not be fetched: only https URLs are fetched, not http:`,
      ]);
      expect(loopbackName.details[0]).toMatch(/localhost resolves to .* loopback range/);
      expect(server.hits.get('/lists/strict') ?? 0).toBe(before);
    });
  });
});
