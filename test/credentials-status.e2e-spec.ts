import { gunzipSync } from 'node:zlib';
import { queryDatabase } from './support/database.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  alumniCredential,
  issue,
  verifyCredential,
  type Json,
} from './support/credentials-harness.js';

const statusPath = '/ctrl/api/v1.0/credentials/status';

interface Entry {
  id: string;
  type: string;
  statusPurpose: string;
  statusListIndex: string;
  statusListCredential: string;
}

/** Revocation and suspension with Bitstring Status Lists: real HTTP, real PostgreSQL. */
describe('Credentials: status', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const [id, label] of [
      ['demo', 'Demo'],
      ['other', 'Other'],
      ['leaving', 'Leaving'],
      ['filling', 'Filling'],
      ['crowded', 'Crowded'],
    ]) {
      await service.client().createTenant({ id, label });
    }
  });
  afterAll(() => service.close());

  async function issued(tenantId = 'demo', options?: Json, extra: Json = {}): Promise<Json> {
    const response = await issue(service, tenantId, alumniCredential(extra), options);
    expect(response.status).toBe(201);
    return response.body.verifiableCredential;
  }
  const entriesOf = (credential: Json) =>
    [credential.credentialStatus].flat().filter(Boolean) as Entry[];
  const setStatus = (
    tenantId: string,
    credentialId: unknown,
    statusPurpose: string,
    status?: boolean,
    as: 'admin' | 'demo' = 'admin',
  ) =>
    service.request(statusPath, {
      method: 'POST',
      as,
      headers: { 'x-tenant-id': tenantId },
      body: {
        credentialId,
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose },
        ...(status === undefined ? {} : { status }),
      },
    });
  const failedChecks = (body: Json) =>
    (body.problemDetails as { check: string; detail: string }[]).map(
      (p) => `${p.check}: ${p.detail}`,
    );
  async function publicList(url: string, headers: Record<string, string> = {}) {
    return service.request<Json>(new URL(url).pathname, { as: 'anonymous', headers });
  }
  function bitsOf(list: Json): Buffer {
    const encoded = (list.credentialSubject as { encodedList: string }).encodedList;
    return gunzipSync(Buffer.from(encoded.slice(1), 'base64url'));
  }
  const bitAt = (bits: Buffer, index: number) => (bits[index >> 3] & (0x80 >> (index & 7))) !== 0;

  it('gives a credential a revocation entry by default, in a list at PUBLIC_BASE_URL', async () => {
    const credential = await issued();
    const [entry, ...more] = entriesOf(credential);

    expect(more).toEqual([]);
    expect(entry).toEqual({
      id: `${entry.statusListCredential}#${entry.statusListIndex}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: expect.stringMatching(/^\d+$/),
      statusListCredential: expect.stringMatching(
        new RegExp(`^${service.publicBaseUrl}/ctrl/status-lists/demo/[0-9a-f-]{36}$`),
      ),
    });
    expect(Number(entry.statusListIndex)).toBeLessThan(131_072);
  });

  it('revokes: verification then fails naming the status check, and a revocation cannot be undone', async () => {
    const credential = await issued();
    expect((await verifyCredential(service, 'demo', credential)).status).toBe(200);

    expect((await setStatus('demo', credential.id, 'revocation')).status).toBe(204);
    const response = await verifyCredential(service, 'demo', credential);
    expect(response.status).toBe(422);
    expect(failedChecks(response.body)).toEqual(['status: the credential is revoked']);

    const undo = await setStatus('demo', credential.id, 'revocation', false);
    expectProblem(undo, 400, 'VALIDATION_FAILED', statusPath);
    expect((await setStatus('demo', credential.id, 'revocation')).status).toBe(204);
  });

  it('suspends and lifts a suspension', async () => {
    const credential = await issued('demo', {
      credentialStatus: [
        { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
      ],
    });
    expect(entriesOf(credential).map((entry) => entry.statusPurpose)).toEqual([
      'revocation',
      'suspension',
    ]);

    expect((await setStatus('demo', credential.id, 'suspension')).status).toBe(204);
    const suspended = await verifyCredential(service, 'demo', credential);
    expect(failedChecks(suspended.body)).toEqual(['status: the credential is suspended']);

    await service.client().updateCredentialStatus('demo', {
      credentialId: credential.id as string,
      credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
      status: false,
    });
    expect((await verifyCredential(service, 'demo', credential)).status).toBe(200);
  });

  it('attaches no entry when asked for none, and refuses an unknown status request', async () => {
    const credential = await issued('demo', { credentialStatus: [] });
    expect(credential.credentialStatus).toBeUndefined();

    const refused = await issue(service, 'demo', alumniCredential(), {
      credentialStatus: { type: 'StatusList2021Entry', statusPurpose: 'revocation' },
    });
    expectProblem(refused, 400, 'CREDENTIAL_INVALID', '/ctrl/api/v1.0/credentials/issue');
  });

  it('publishes each list signed by the tenant DID, without a token, with the bit set at once', async () => {
    const credential = await issued();
    const [entry] = entriesOf(credential);
    const before = await publicList(entry.statusListCredential);
    expect(before.status).toBe(200);
    expect(before.headers.get('cache-control')).toBe('public, max-age=10');
    expect(before.body).toMatchObject({
      id: entry.statusListCredential,
      type: ['VerifiableCredential', 'BitstringStatusListCredential'],
      issuer: credential.issuer,
      credentialSubject: { type: 'BitstringStatusList', statusPurpose: 'revocation' },
    });
    expect(bitsOf(before.body).length * 8).toBe(131_072);
    expect(bitAt(bitsOf(before.body), Number(entry.statusListIndex))).toBe(false);
    // The list is itself a credential that verifies against the tenant's DID.
    expect((await verifyCredential(service, 'demo', before.body)).status).toBe(200);

    const etag = before.headers.get('etag')!;
    expect((await publicList(entry.statusListCredential, { 'if-none-match': etag })).status).toBe(
      304,
    );

    await setStatus('demo', credential.id, 'revocation');
    const after = await publicList(entry.statusListCredential, { 'if-none-match': etag });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(bitAt(bitsOf(after.body), Number(entry.statusListIndex))).toBe(true);
  });

  it('gives 100 credentials issued at once 100 distinct indices', async () => {
    const credentials = await Promise.all(Array.from({ length: 100 }, () => issued('other')));
    const indices = credentials.map((credential) => {
      const [entry] = entriesOf(credential);
      return `${entry.statusListCredential}#${entry.statusListIndex}`;
    });
    expect(new Set(indices).size).toBe(100);
  });

  /** Fills every index of the list but `free` with entries of made-up credentials. */
  const fillAllBut = (tenantId: string, listId: string, free: number[]) =>
    queryDatabase(
      service.databaseUrl,
      `INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
       SELECT $1, i, $2, 'urn:example:filler:' || i, 'revocation'
         FROM generate_series(0, 131071) i WHERE i <> ALL($3::int[])
       ON CONFLICT DO NOTHING`,
      [listId, tenantId, free],
    );

  it('opens a new list when the last free index of one is taken while others sign', async () => {
    const first = entriesOf(await issued('filling'))[0];
    const listId = first.statusListCredential.split('/').pop()!;
    const last = (Number(first.statusListIndex) + 1) % 131_072;
    await fillAllBut('filling', listId, [last]);
    const credentials = await Promise.all(Array.from({ length: 10 }, () => issued('filling')));
    const entries = credentials.map((credential) => entriesOf(credential)[0]);
    const inFirst = entries.filter((e) => e.statusListCredential === first.statusListCredential);
    expect(inFirst.map((e) => e.statusListIndex)).toEqual([String(last)]);
    expect(new Set(entries.map((e) => e.statusListCredential)).size).toBe(2);
    const rows = await queryDatabase<{ filled: boolean; entries: number }>(
      service.databaseUrl,
      `SELECT l.filled_at IS NOT NULL AS filled,
              (SELECT count(*)::int FROM credential_status_entry e WHERE e.list_id = l.id) AS entries
         FROM credential_status_list l WHERE tenant_id = 'filling' ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { filled: true, entries: 131_072 },
      { filled: false, entries: 9 },
    ]);
    for (const credential of credentials.slice(0, 3)) {
      expect((await verifyCredential(service, 'filling', credential)).status).toBe(200);
    }
  });

  it('finds the last free index of a nearly full list', async () => {
    const first = entriesOf(await issued('crowded'))[0];
    const listId = first.statusListCredential.split('/').pop()!;
    const last = (Number(first.statusListIndex) + 65_536) % 131_072;
    await fillAllBut('crowded', listId, [Number(first.statusListIndex), last]);
    const lastOne = entriesOf(await issued('crowded'))[0];
    expect(lastOne.statusListCredential).toBe(first.statusListCredential);
    expect(lastOne.statusListIndex).toBe(String(last));
    const next = entriesOf(await issued('crowded'))[0];
    expect(next.statusListCredential).not.toBe(first.statusListCredential);
  });

  it('issues with both entries at once whichever order they are asked in, revocation first', async () => {
    const entry = (statusPurpose: string) => ({ type: 'BitstringStatusListEntry', statusPurpose });
    const orders = [
      [entry('revocation'), entry('suspension')],
      [entry('suspension'), entry('revocation')],
    ];
    const credentials = await Promise.all(
      Array.from({ length: 20 }, (_, n) => issued('other', { credentialStatus: orders[n % 2] })),
    );
    for (const credential of credentials) {
      expect(entriesOf(credential).map((e) => e.statusPurpose)).toEqual([
        'revocation',
        'suspension',
      ]);
    }
  });

  it('loses none of 50 status changes made at once on one list', async () => {
    const credentials = await Promise.all(
      Array.from({ length: 50 }, () =>
        issued('other', {
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
        }),
      ),
    );
    const answers = await Promise.all(
      credentials.map((credential) => setStatus('other', credential.id, 'suspension')),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 204));

    const entries = credentials.map((credential) => entriesOf(credential)[0]);
    expect(new Set(entries.map((entry) => entry.statusListCredential)).size).toBe(1);
    const bits = bitsOf((await publicList(entries[0].statusListCredential)).body);
    expect(entries.filter((entry) => !bitAt(bits, Number(entry.statusListIndex)))).toEqual([]);
  });

  it("changes only its own tenant's credentials", async () => {
    const others = await issued('other');
    const asDemoUser = await setStatus('other', others.id, 'revocation', undefined, 'demo');
    expectProblem(asDemoUser, 403, 'FORBIDDEN', statusPath);
    // Named under another tenant, the credential is simply not found.
    const crossTenant = await setStatus('demo', others.id, 'revocation');
    expectProblem(crossTenant, 404, 'CREDENTIAL_NOT_FOUND', statusPath);
    expect((await verifyCredential(service, 'other', others)).status).toBe(200);
  });

  it('refuses a second credential with the same id', async () => {
    await issued('demo', undefined, { id: 'urn:example:once' });
    const again = await issue(service, 'demo', alumniCredential({ id: 'urn:example:once' }));
    expectProblem(again, 409, 'CREDENTIAL_ALREADY_EXISTS', '/ctrl/api/v1.0/credentials/issue');
  });

  it('publishes on request for the tenant only, and a deleted tenant has no lists', async () => {
    const credential = await issued('leaving');
    const url = entriesOf(credential)[0].statusListCredential;
    const publishPath = `${new URL(url).pathname}/publish`;
    expect((await service.request(publishPath, { method: 'POST' })).status).toBe(204);
    const asDemoUser = await service.request(publishPath, { method: 'POST', as: 'demo' });
    expectProblem(asDemoUser, 403, 'FORBIDDEN', publishPath);

    await service.client().deleteTenant('leaving');
    const gone = await publicList(url);
    expectProblem(gone, 404, 'STATUS_LIST_NOT_FOUND', new URL(url).pathname);
    const refused = await verifyCredential(service, 'demo', credential);
    expect(refused.status).toBe(422);
    expect(failedChecks(refused.body).join()).toMatch(/status: the status list does not exist/);
  });
});
