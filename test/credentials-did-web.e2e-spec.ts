import { createCredential, createList } from '@digitalbazaar/vc-bitstring-status-list';
import {
  alumniCredential,
  credentialOutcome,
  presentationOutcome,
  type Json,
} from './support/credentials-harness.js';
import {
  didDocumentOf,
  foreignKey,
  methodOf,
  type Canonicalization,
  type ForeignKey,
} from './support/foreign-keys.js';
import { startHttpsOrigin, type TestOrigin } from './support/test-origin.js';
import { createTestCa, type TestCa } from './support/test-ca.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * Issuers elsewhere with did:web DIDs, their documents and status lists on loopback https origins
 * whose certificates a CA made here signed (trusted through OUTBOUND_CA_FILE). Every credential and
 * list is signed by Digital Bazaar's libraries with the did:web's own keys, Ed25519 and P-256.
 */
describe('did:web issuers and their status lists', () => {
  let ca: TestCa;
  let service: TestService;
  /** Where the DID documents live. */
  let dids: TestOrigin;
  /** Where the status lists live: another origin. */
  let lists: TestOrigin;
  /** The service's clock where a test stops it; the real time otherwise. */
  let frozenAt: number | undefined;
  afterEach(() => {
    frozenAt = undefined;
  });

  interface WebIssuer {
    did: string;
    methodId: string;
    key: ForeignKey;
    sign(credential: Json, how?: Canonicalization): Promise<Json>;
  }

  /** A did:web at `path` (none: the host's /.well-known), its document published on `dids`. */
  async function webIssuer(
    kind: 'Ed25519' | 'P-256',
    path: string[] = [],
    form: 'Multikey' | 'JsonWebKey' | 'Ed25519VerificationKey2020' = 'Multikey',
    relationships?: string[],
  ): Promise<WebIssuer> {
    const key = await foreignKey(kind);
    const did = ['did:web', dids.didWebHost, ...path].join(':');
    const method = methodOf(did, key, 'key-1', form);
    dids.json(
      path.length === 0 ? '/.well-known/did.json' : `/${path.join('/')}/did.json`,
      didDocumentOf(did, [method], relationships),
    );
    const methodId = String(method.id);
    return {
      did,
      methodId,
      key,
      sign: (credential, how) => key.issue(credential, did, methodId, how),
    };
  }

  /** A revocation list of `by` at `path` on the lists origin, with `set` bits set. */
  async function publishList(
    path: string,
    by: WebIssuer,
    options: { set?: number[]; purpose?: string; extra?: Json; tamper?: (list: Json) => void } = {},
  ): Promise<string> {
    const url = `${lists.origin}${path}`;
    const list = await createList({ length: 131_072 });
    for (const index of options.set ?? []) list.setStatus(index, true);
    const unsigned = await createCredential({
      id: url,
      list,
      statusPurpose: options.purpose ?? 'revocation',
    });
    const signed = await by.sign({ ...unsigned, ...options.extra });
    options.tamper?.(signed);
    lists.json(path, signed);
    return url;
  }

  function credentialOf(by: WebIssuer, listUrl?: string, how?: Canonicalization): Promise<Json> {
    const status =
      listUrl === undefined
        ? {}
        : {
            credentialStatus: {
              id: `${listUrl}#7`,
              type: 'BitstringStatusListEntry',
              statusPurpose: 'revocation',
              statusListIndex: '7',
              statusListCredential: listUrl,
            },
          };
    return by.sign(alumniCredential({ id: `urn:uuid:${crypto.randomUUID()}`, ...status }), how);
  }

  const outcome = (credential: Json, on = service) => credentialOutcome(on, 'demo', credential);
  const presentationOutcomeOf = (presentation: Json, challenge: string) =>
    presentationOutcome(service, 'demo', presentation, challenge);

  beforeAll(async () => {
    ca = await createTestCa();
    [dids, lists] = await Promise.all([startHttpsOrigin(ca), startHttpsOrigin(ca)]);
    service = await startTestService({
      env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true', OUTBOUND_CA_FILE: ca.caFile },
      clock: () => frozenAt ?? Date.now(),
    });
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
  });
  afterAll(async () => {
    await Promise.all([service.close(), dids.close(), lists.close()]);
  });

  it.each<['Ed25519' | 'P-256', Canonicalization]>([
    ['Ed25519', 'rdfc'],
    ['Ed25519', 'jcs'],
    ['P-256', 'rdfc'],
    ['P-256', 'jcs'],
  ])(
    'verifies a %s (%s) did:web credential against its list on another origin, then sees it revoked',
    async (kind, how) => {
      const issuer = await webIssuer(kind, ['issuers', `${kind}-${how}`]);
      const path = `/lists/${kind}-${how}`;
      const url = await publishList(path, issuer);
      const credential = await credentialOf(issuer, url, how);
      expect((credential.proof as Json).cryptosuite).toBe(
        `${kind === 'Ed25519' ? 'eddsa' : 'ecdsa'}-${how}-${kind === 'Ed25519' ? '2022' : '2019'}`,
      );
      expect(await outcome(credential)).toEqual({ status: 200, details: [] });

      await publishList(path, issuer, { set: [7] });
      expect(await outcome(credential)).toEqual({
        status: 422,
        details: ['status: the credential is revoked'],
      });
    },
  );

  it("refuses a did:web issuer the tenant's trusted issuers leave out, and accepts it once listed", async () => {
    const issuer = await webIssuer('P-256', ['issuers', 'trusted']);
    const credential = await credentialOf(issuer, await publishList('/lists/trusted', issuer));
    const client = service.client();
    const other = await client.createTrustedIssuer('demo', { issuer: 'did:web:other.example' });
    try {
      expect(await outcome(credential)).toEqual({
        status: 422,
        details: [`issuer: untrusted issuer: '${issuer.did}' is not in the trusted issuers list`],
      });
      const listed = await client.createTrustedIssuer('demo', { issuer: issuer.did });
      expect(await outcome(credential)).toEqual({ status: 200, details: [] });
      await client.deleteTrustedIssuer('demo', listed.id);
    } finally {
      await client.deleteTrustedIssuer('demo', other.id);
    }
    expect(await outcome(credential)).toEqual({ status: 200, details: [] });
  });

  it('resolves a bare-host did:web from /.well-known/did.json, a P-256 JsonWebKey', async () => {
    const issuer = await webIssuer('P-256', [], 'JsonWebKey');
    expect(issuer.did).toBe(`did:web:${dids.didWebHost}`);
    expect(await outcome(await credentialOf(issuer))).toEqual({ status: 200, details: [] });
    expect(dids.hits.get('/.well-known/did.json')).toBeGreaterThanOrEqual(1);
  });

  it('resolves an Ed25519VerificationKey2020 key of a did:web', async () => {
    const issuer = await webIssuer('Ed25519', ['issuers', 'ed-2020'], 'Ed25519VerificationKey2020');
    expect(await outcome(await credentialOf(issuer))).toEqual({ status: 200, details: [] });
  });

  it('refuses a credential changed after its did:web issuer signed it', async () => {
    const issuer = await webIssuer('P-256', ['issuers', 'tampered']);
    const credential = await credentialOf(issuer);
    (credential.credentialSubject as Json).alumniOf = 'Another School';
    const { status, details } = await outcome(credential);
    expect(status).toBe(422);
    expect(details).toEqual([expect.stringMatching(/^proof: proof \(ecdsa-rdfc-2019\): /)]);
  });

  it('counts only keys listed for assertionMethod', async () => {
    const issuer = await webIssuer('Ed25519', ['issuers', 'login-only'], 'Multikey', [
      'authentication',
    ]);
    expect(await outcome(await credentialOf(issuer))).toEqual({
      status: 422,
      details: [
        `issuer: proof (eddsa-rdfc-2022): the key '${issuer.methodId}' is not an assertionMethod key of ${issuer.did}`,
      ],
    });
  });

  it.each<[string, (did: string) => void, RegExp]>([
    [
      'over the size cap',
      (did) =>
        dids.routes.set('/issuers/huge/did.json', (response) =>
          response.end(JSON.stringify({ id: did, padding: 'x'.repeat(65 * 1024) })),
        ),
      /did\.json could not be fetched: the answer is larger than 65536 bytes/,
    ],
    [
      'naming another DID',
      () => dids.json('/issuers/huge/did.json', { id: 'did:web:example.com' }),
      /the DID document's id is "did:web:example.com", not the DID/,
    ],
    [
      'behind a redirect',
      () =>
        dids.routes.set('/issuers/huge/did.json', (response) => {
          response.writeHead(301, { location: '/.well-known/did.json' });
          response.end();
        }),
      /answered HTTP 301 \(a redirect to \/.well-known\/did.json\), which is not followed/,
    ],
    ['missing', () => dids.routes.delete('/issuers/huge/did.json'), /answered HTTP 404/],
  ])('fails the issuer check for a did:web document %s', async (_name, publish, reason) => {
    // A fresh DID each time: what failed is remembered for a while.
    const key = await foreignKey('Ed25519');
    const did = `did:web:${dids.didWebHost}:issuers:huge:${crypto.randomUUID()}`;
    const path = `/${did.split(':').slice(3).join('/')}/did.json`;
    publish(did);
    const moved = dids.routes.get('/issuers/huge/did.json');
    if (moved !== undefined) dids.routes.set(path, moved);
    const credential = await key.issue(alumniCredential(), did, `${did}#key-1`);
    const { status, details } = await outcome(credential);
    expect(status).toBe(422);
    expect(details.find((detail) => detail.startsWith('issuer: '))).toMatch(reason);
  });

  it('verifies other credentials while a did:web server keeps a verification waiting, then fails it', async () => {
    const key = await foreignKey('P-256');
    const did = `did:web:${dids.didWebHost}:issuers:tarpit`;
    // Answers nothing: the fetch waits for its 5 s timeout.
    dids.routes.set('/issuers/tarpit/did.json', () => undefined);
    const slow = outcome(await key.issue(alumniCredential(), did, `${did}#key-1`));
    let slowSettled = false;
    void slow.then(() => (slowSettled = true));
    const quick = await webIssuer('Ed25519', ['issuers', 'quick']);
    expect(await outcome(await credentialOf(quick))).toEqual({ status: 200, details: [] });
    expect(slowSettled).toBe(false);
    const { status, details } = await slow;
    expect(status).toBe(422);
    expect(details.find((detail) => detail.startsWith('issuer: '))).toMatch(
      /could not be fetched: no complete answer within 5000 ms|not read in the time a verification has/,
    );
  });

  it('names the method it does not resolve', async () => {
    const key = await foreignKey('Ed25519');
    const did = 'did:ion:EiClkZMDxPKqC9c-umQfTkR8vvZ9JPhl_xLDI9Nfk38w5w';
    const credential = await key.issue(alumniCredential(), did, `${did}#key-1`);
    const { status, details } = await outcome(credential);
    expect(status).toBe(422);
    expect(details).toContain(
      'issuer: did:ion is not a DID method this service resolves (did:key, did:jwk, did:web)',
    );
  });

  describe('status lists a verifier cannot use', () => {
    let issuer: WebIssuer;
    beforeAll(async () => {
      issuer = await webIssuer('P-256', ['issuers', 'lists']);
    });

    it('does not remember a list past its validUntil, whatever its max-age', async () => {
      // The service's clock stands still a second ahead, the list ends 20 ms after it.
      const start = Date.now() + 1_000;
      frozenAt = start;
      const ends = new Date(start + 20);
      const path = '/bad/ending';
      const url = `${lists.origin}${path}`;
      const list = await createList({ length: 131_072 });
      const unsigned = await createCredential({ id: url, list, statusPurpose: 'revocation' });
      lists.json(
        path,
        await issuer.sign({ ...unsigned, validUntil: ends.toISOString() }),
        'max-age=300',
      );
      const credential = await credentialOf(issuer, url);
      expect(await outcome(credential)).toEqual({ status: 200, details: [] });
      // Past the list's end; it was remembered for the 20 ms it had left, which have passed too.
      frozenAt = ends.getTime() + 1_000;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const { status, details } = await outcome(credential);
      expect(status).toBe(422);
      expect(details).toEqual([expect.stringMatching(/is outside its validity period: expired/)]);
      expect(lists.hits.get(path)).toBe(2);
    });

    it.each<[string, () => Promise<string>, RegExp]>([
      [
        'forged (changed after it was signed)',
        async () => {
          // The issuer's list with bit 7 clear, its bits swapped for a list where it is set.
          const revoked = await createList({ length: 131_072 });
          revoked.setStatus(7, true);
          const { credentialSubject } = await createCredential({
            id: `${lists.origin}/bad/forged`,
            list: revoked,
            statusPurpose: 'revocation',
          });
          return publishList('/bad/forged', issuer, {
            tamper: (list) => {
              (list.credentialSubject as Json).encodedList = (
                credentialSubject as Json
              ).encodedList;
            },
          });
        },
        /the status list https:\/\/localhost:\d+\/bad\/forged does not verify: proof \(ecdsa-rdfc-2019\): /,
      ],
      [
        'of another issuer',
        async () => publishList('/bad/other', await webIssuer('Ed25519', ['issuers', 'other'])),
        /is issued by 'did:web:localhost%3A\d+:issuers:other', not by the credential's issuer/,
      ],
      [
        'expired',
        () =>
          publishList('/bad/expired', issuer, {
            extra: { validUntil: '2020-01-01T00:00:00Z' },
          }),
        /the status list \S+ is outside its validity period: expired: validUntil 2020-01-01T00:00:00Z/,
      ],
      [
        'not yet valid',
        () => publishList('/bad/future', issuer, { extra: { validFrom: '2999-01-01T00:00:00Z' } }),
        /is outside its validity period: not valid before validFrom 2999-01-01T00:00:00Z/,
      ],
      [
        'for another purpose',
        () => publishList('/bad/suspension', issuer, { purpose: 'suspension' }),
        /is for suspension, not revocation/,
      ],
      [
        'behind a redirect',
        async () => {
          await publishList('/bad/target', issuer);
          lists.routes.set('/bad/moved', (response) => {
            response.writeHead(302, { location: '/bad/target' });
            response.end();
          });
          return `${lists.origin}/bad/moved`;
        },
        /answered HTTP 302 \(a redirect to \/bad\/target\), which is not followed: a status list is read only at the URL the credential names/,
      ],
    ])('fails the status check for a list %s', async (_name, listUrl, reason) => {
      const credential = await credentialOf(issuer, await listUrl());
      const { status, details } = await outcome(credential);
      expect(status).toBe(422);
      expect(details).toHaveLength(1);
      expect(details[0]).toMatch(/^status: /);
      expect(details[0]).toMatch(reason);
    });
  });

  describe('entries of several bits (statusSize, statusMessage)', () => {
    let issuer: WebIssuer;
    const messages = [0, 1, 2, 3].map((value) => ({
      status: `0x${value}`,
      message: value === 0 ? 'valid' : `code ${value}`,
    }));

    /** A list of 2-bit entries of `purpose` where entry 7 holds 0b10, and a credential with `entry`. */
    async function twoBitCase(purpose: string, entry: Json): Promise<Json> {
      issuer ??= await webIssuer('Ed25519', ['issuers', 'two-bit']);
      const path = `/two-bit/${purpose}-${crypto.randomUUID()}`;
      const url = `${lists.origin}${path}`;
      const list = await createList({ length: 2 * 131_072 });
      list.setStatus(2 * 7, true);
      lists.json(
        path,
        await issuer.sign(await createCredential({ id: url, list, statusPurpose: purpose })),
      );
      return issuer.sign(
        alumniCredential({
          credentialStatus: {
            id: `${url}#7`,
            type: 'BitstringStatusListEntry',
            statusPurpose: purpose,
            statusListIndex: '7',
            statusListCredential: url,
            ...entry,
          },
        }),
      );
    }

    it('fails a revocation whose 2-bit status is not zero', async () => {
      const credential = await twoBitCase('revocation', { statusSize: 2, statusMessage: messages });
      expect(await outcome(credential)).toEqual({
        status: 422,
        details: ['status: the credential is revoked'],
      });
    });

    it('does not fail a message status: it informs', async () => {
      const credential = await twoBitCase('message', { statusSize: 2, statusMessage: messages });
      expect(await outcome(credential)).toEqual({ status: 200, details: [] });
    });

    it.each<[string, Json, RegExp]>([
      [
        'statusSize 2 without statusMessage',
        { statusSize: 2 },
        /the entry has statusSize 2 but no statusMessage/,
      ],
      [
        'too few messages',
        { statusSize: 2, statusMessage: messages.slice(0, 2) },
        /must list 4 messages/,
      ],
      [
        'a list too short for its size',
        {
          statusSize: 4,
          statusMessage: Array.from({ length: 16 }, (_, value) => ({
            status: `0x${value.toString(16)}`,
            message: 'm',
          })),
        },
        /holds 65536 entries of 4 bits, fewer than the 131072/,
      ],
    ])('fails the status check for an entry with %s', async (_name, entry, reason) => {
      const { status, details } = await outcome(await twoBitCase('revocation', entry));
      expect(status).toBe(422);
      expect(details).toEqual([expect.stringMatching(reason)]);
    });
  });

  describe('did:web holders', () => {
    it('verifies a presentation whose holder is a did:web with an authentication key', async () => {
      const holder = await webIssuer('P-256', ['holders', 'alice']);
      const credential = await credentialOf(await webIssuer('Ed25519', ['issuers', 'for-alice']));
      const presentation = await holder.key.present(
        [credential],
        holder.did,
        holder.methodId,
        'c-1',
      );
      expect(await presentationOutcomeOf(presentation, 'c-1')).toEqual({
        status: 200,
        details: [],
      });
    });

    it('refuses one whose key the did:web lists for assertionMethod only', async () => {
      const holder = await webIssuer('Ed25519', ['holders', 'bob'], 'Multikey', [
        'assertionMethod',
      ]);
      const presentation = await holder.key.present([], holder.did, holder.methodId, 'c-2');
      expect(await presentationOutcomeOf(presentation, 'c-2')).toEqual({
        status: 422,
        details: [
          `holder: proof (eddsa-rdfc-2022): the key '${holder.methodId}' is not an authentication key of ${holder.did}`,
        ],
      });
    });
  });

  it('does not trust the test CA without OUTBOUND_CA_FILE', async () => {
    const strict = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    try {
      await strict.client().createTenant({ id: 'demo', label: 'Demo' });
      const issuer = await webIssuer('Ed25519', ['issuers', 'untrusted']);
      const { status, details } = await outcome(await credentialOf(issuer), strict);
      expect(status).toBe(422);
      expect(details.find((detail) => detail.startsWith('issuer: '))).toMatch(
        /could not be fetched: the request failed: .*(certificate|issuer)/i,
      );
    } finally {
      await strict.close();
    }
  });
});
