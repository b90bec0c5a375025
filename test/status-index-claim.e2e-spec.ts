import { DataSource } from 'typeorm';
import {
  StatusIndexAllocator,
  StatusIndexTaken,
} from '../src/credentials/status/status-index-allocator.js';
import { type StatusListsService } from '../src/credentials/status/status-lists.service.js';
import { startTestService, type TestService } from './support/test-service.js';
import { alumniCredential, issue } from './support/credentials-harness.js';

/**
 * An index picked before signing is claimed at commit: a claim that lost the index or the list's last
 * room takes nothing. The allocator on the service's real database, beside the running service.
 */
describe('Status index claims', () => {
  let service: TestService;
  let dataSource: DataSource;
  let allocator: StatusIndexAllocator;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    // The tenant's first issue opens its revocation list.
    expect((await issue(service, 'demo', alumniCredential())).status).toBe(201);
    dataSource = new DataSource({ type: 'postgres', url: service.databaseUrl });
    await dataSource.initialize();
    const lists = { listUrl: (tenant: string, list: string) => `https://lists/${tenant}/${list}` };
    allocator = new StatusIndexAllocator(lists as StatusListsService);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await service.close();
  });

  const claim = (credentialId: string, picked: Awaited<ReturnType<typeof pick>>) =>
    dataSource.transaction((manager) => allocator.claim(manager, 'demo', credentialId, picked));
  async function pick() {
    const picked = await dataSource.transaction((manager) =>
      allocator.pickFree(manager, 'demo', ['revocation']),
    );
    expect(picked).toHaveLength(1);
    return picked!;
  }
  const entryCount = async (credentialId: string) =>
    (
      await dataSource.query<unknown[]>(
        'SELECT 1 FROM credential_status_entry WHERE credential_id = $1',
        [credentialId],
      )
    ).length;

  it('takes a picked index once: a second claim of it takes nothing', async () => {
    const picked = await pick();
    expect(allocator.entriesOf('demo', picked)[0].statusListIndex).toBe(String(picked[0].index));
    await claim('urn:example:first', picked);
    await expect(claim('urn:example:second', picked)).rejects.toBeInstanceOf(StatusIndexTaken);
    expect(await entryCount('urn:example:first')).toBe(1);
    expect(await entryCount('urn:example:second')).toBe(0);
  });

  it('leaves the count as it was when a claim fails', async () => {
    const picked = await pick();
    const allocated = () =>
      dataSource.query<{ allocated: number }[]>(
        'SELECT allocated FROM credential_status_list WHERE id = $1',
        [picked[0].listId],
      );
    const before = await allocated();
    await claim('urn:example:third', picked);
    await expect(claim('urn:example:fourth', picked)).rejects.toBeInstanceOf(StatusIndexTaken);
    expect((await allocated())[0].allocated).toBe(before[0].allocated + 1);
  });

  it('takes nothing when the list filled between the pick and the claim', async () => {
    const picked = await pick();
    await dataSource.query('UPDATE credential_status_list SET allocated = length WHERE id = $1', [
      picked[0].listId,
    ]);
    await expect(claim('urn:example:late', picked)).rejects.toBeInstanceOf(StatusIndexTaken);
    expect(await entryCount('urn:example:late')).toBe(0);
    // With no open list left nothing is picked: the issue opens a new list holding the row lock.
    expect(
      await dataSource.transaction((manager) =>
        allocator.pickFree(manager, 'demo', ['revocation']),
      ),
    ).toBeUndefined();
  });
});
