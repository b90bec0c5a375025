import { generateKeyPairSync } from 'node:crypto';
import { startHttpsOrigin, type TestOrigin } from '../../../test/support/test-origin.js';
import { createTestCa } from '../../../test/support/test-ca.js';
import { loadSettings } from '../../config/load-settings.js';
import { ed25519DidKey } from '../../did/did-key.js';
import { DidResolution } from './did-resolution.js';

/** DidResolution against a loopback https origin whose certificate a CA made here signed. */
describe(DidResolution.name, () => {
  let origin: TestOrigin;
  let resolution: DidResolution;
  const documentOf = (did: string) => ({
    id: did,
    verificationMethod: [
      {
        id: '#key-1',
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: `zDna${'b'.repeat(40)}`,
      },
    ],
    assertionMethod: ['#key-1'],
  });

  beforeAll(async () => {
    const ca = await createTestCa();
    origin = await startHttpsOrigin(ca);
    const { OUTBOUND_CA_FILE } = loadSettings({ OUTBOUND_CA_FILE: ca.caFile, DATA_DIR: '.' });
    resolution = new DidResolution({ allowPrivate: 'loopback', ca: OUTBOUND_CA_FILE });
  });
  afterAll(() => origin.close());

  it('fetches a did:web once for concurrent readers, and remembers it', async () => {
    const did = `did:web:${origin.didWebHost}:shared`;
    origin.json('/shared/did.json', documentOf(did), 'max-age=60');
    const documents = await Promise.all(
      Array.from({ length: 5 }, () => resolution.dereference(`${did}#key-1`)),
    );
    expect(documents.map((document) => document.id)).toEqual(Array(5).fill(`${did}#key-1`));
    await resolution.dereference(did);
    expect(origin.hits.get('/shared/did.json')).toBe(1);
  });

  it('never fetches through rememberedOnly, the loader of verification steps', async () => {
    const did = `did:web:${origin.didWebHost}:unread`;
    origin.json('/unread/did.json', documentOf(did));
    await expect(resolution.rememberedOnly(`${did}#key-1`)).rejects.toThrow(
      /was not read in the time a verification has/,
    );
    expect(origin.hits.get('/unread/did.json')).toBeUndefined();
    await resolution.dereference(did);
    await expect(resolution.rememberedOnly(`${did}#key-1`)).resolves.toMatchObject({
      type: 'Multikey',
      controller: did,
    });
    expect(origin.hits.get('/unread/did.json')).toBe(1);
  });

  it('pins what resolved by the deadline, and leaves out what did not', async () => {
    const quick = `did:web:${origin.didWebHost}:quick`;
    const slow = `did:web:${origin.didWebHost}:slow`;
    origin.json('/quick/did.json', documentOf(quick));
    origin.routes.set('/slow/did.json', () => undefined);
    const pinned = await resolution.prefetch(
      [`${quick}#key-1`, `${slow}#key-1`, 'https://not-a-did.example', 'did:ion:abc'],
      AbortSignal.timeout(500),
    );
    expect([...pinned.keys()]).toEqual([`${quick}#key-1`]);
  });

  it("refuses a loopback did:web under production's policy, before connecting", async () => {
    const strict = new DidResolution({ allowPrivate: false });
    const did = `did:web:${origin.didWebHost}:strict`;
    origin.json('/strict/did.json', documentOf(did));
    await expect(strict.dereference(did)).rejects.toThrow(
      /could not be fetched: localhost resolves to .* loopback/,
    );
    expect(origin.hits.get('/strict/did.json')).toBeUndefined();
  });

  it('refuses a key type it does not verify with, and a method it does not resolve', async () => {
    const did = `did:web:${origin.didWebHost}:p384`;
    origin.json('/p384/did.json', {
      ...documentOf(did),
      verificationMethod: [
        { id: '#key-1', type: 'Multikey', controller: did, publicKeyMultibase: 'z82LkvExample' },
      ],
    });
    await expect(resolution.dereference(`${did}#key-1`)).rejects.toThrow(
      /the key is a Multikey \(z82L…\), not an Ed25519 or P-256 key/,
    );
    await expect(resolution.dereference('did:ion:abc')).rejects.toThrow(
      'did:ion is not a DID method this service resolves (did:key, did:jwk, did:web)',
    );
    await expect(resolution.dereference(`${did}/path`)).rejects.toThrow(/path or query/);
  });

  it('answers each caller a copy of the key it names, the remembered documents untouched', async () => {
    const did = `did:web:${origin.didWebHost}:copies`;
    origin.json('/copies/did.json', {
      '@context': ['https://www.w3.org/ns/did/v1'],
      ...documentOf(did),
    });
    const { publicKey } = generateKeyPairSync('ed25519');
    const local = ed25519DidKey(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
    for (const url of [`${did}#key-1`, `${local.did}#${local.publicKeyMultibase}`]) {
      const first = await resolution.dereference(url);
      const before = structuredClone(first);
      (first['@context'] as unknown[]).push('https://example.com/poisoned');
      first.publicKeyMultibase = 'z6MkPoisoned';
      expect(await resolution.dereference(url)).toEqual(before);
    }
    const whole = await resolution.dereference(local.did);
    (whole.verificationMethod as unknown[]).length = 0;
    expect(await resolution.dereference(local.did)).not.toEqual(whole);
  });
});
