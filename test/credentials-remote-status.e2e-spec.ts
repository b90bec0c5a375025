import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
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
  verifyCredential,
  type Json,
} from './support/credentials-harness.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * An issuer elsewhere, made with Digital Bazaar's libraries (its own key, credential and status list),
 * publishing its list on its own HTTP origin: the service must fetch the list, check it and read the bit.
 */
describe('Status lists on other origins', () => {
  let relaxed: TestService;
  let server: Server;
  let origin: string;
  const routes = new Map<string, (response: ServerResponse) => void>();
  const hits = new Map<string, number>();
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
    const url = `${origin}${path}`;
    const list = await createList({ length: options.length ?? 131_072 });
    for (const index of options.set ?? []) list.setStatus(index, true);
    const unsigned = await createCredential({
      id: url,
      list,
      statusPurpose: options.purpose ?? 'revocation',
    });
    const signed = await (options.by ?? issuer).sign(unsigned);
    options.tamper?.(signed);
    routes.set(path, (response) => {
      response.writeHead(200, {
        'content-type': 'application/vc+ld+json',
        'cache-control': options.cacheControl ?? 'no-store',
      });
      response.end(JSON.stringify(signed));
    });
    return url;
  }

  /** A credential of `issuer` whose revocation entry is `index` in the list at `listUrl`. */
  function credentialFor(listUrl: string, index = 7, purpose = 'revocation'): Promise<Json> {
    return issuer.sign(
      alumniCredential({
        id: `urn:uuid:${crypto.randomUUID()}`,
        credentialStatus: {
          id: `${listUrl}#${index}`,
          type: 'BitstringStatusListEntry',
          statusPurpose: purpose,
          statusListIndex: String(index),
          statusListCredential: listUrl,
        },
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
    server = createServer((request, response) => {
      const path = request.url ?? '';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      const route = routes.get(path);
      if (route === undefined) {
        response.writeHead(404);
        return void response.end();
      }
      route(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    relaxed = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    await relaxed.client().createTenant({ id: 'demo', label: 'Demo' });
    issuer = await makeIssuer();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await Promise.all([relaxed.close(), new Promise((resolve) => server.close(resolve))]);
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
    expect([hits.get('/lists/cached'), hits.get('/lists/fresh')]).toEqual([1, 3]);
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
    ['missing', () => `${origin}/lists/none`, /answered HTTP 404/],
    [
      'a redirect, which is not followed',
      () => {
        routes.set('/lists/moved', (response) => {
          response.writeHead(302, { location: '/lists/revocable' });
          response.end();
        });
        return `${origin}/lists/moved`;
      },
      /answered HTTP 302/,
    ],
    [
      'larger than the cap',
      () => {
        routes.set('/lists/huge', (response) => response.end(' '.repeat(600 * 1024)));
        return `${origin}/lists/huge`;
      },
      /larger than 524288 bytes/,
    ],
    [
      'not JSON',
      () => {
        routes.set('/lists/html', (response) => response.end('<html></html>'));
        return `${origin}/lists/html`;
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
      const port = new URL(origin).port;
      const before = hits.get('/lists/strict') ?? 0;
      const plain = await statusDetails(strict, await credentialFor(url));
      const loopbackName = await statusDetails(
        strict,
        await credentialFor(`https://localhost:${port}/lists/strict`),
      );
      expect(plain.details).toEqual([
        `status: the status list ${url} could not be fetched: only https URLs are fetched, not http:`,
      ]);
      expect(loopbackName.details[0]).toMatch(/localhost resolves to .* loopback range/);
      expect(hits.get('/lists/strict') ?? 0).toBe(before);
    });
  });
});
