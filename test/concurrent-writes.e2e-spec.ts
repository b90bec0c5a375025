import { createPath, deletePath, updatePath, type Tenant } from './support/api-shapes.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * A write answers with what its own transaction wrote: a delete that lands right after the commit must
 * not turn a stored create or update into a 404 (and a 404 must mean nothing was changed).
 */
describe('writes racing a delete of the same tenant', () => {
  const lines: string[] = [];
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ logDestination: { write: (line) => lines.push(line) } });
  });

  afterAll(async () => {
    await service.close();
  });

  /** Deletes `id` again and again until one delete succeeds (or `stop` says the race is over). */
  async function deleteAsSoonAsItExists(id: string, stop: () => boolean): Promise<void> {
    while (!stop()) {
      const answer = await service.request(deletePath(id), { method: 'POST' });
      if (answer.status === 204) return;
    }
  }

  function auditLinesOf(action: string, requestIds: Set<string>): number {
    return lines
      .map((line) => JSON.parse(line) as { audit?: string; reqId?: string })
      .filter((entry) => entry.audit === action && requestIds.has(entry.reqId ?? '')).length;
  }

  it('never answers a committed create with 404', async () => {
    const statuses: number[] = [];
    for (let round = 0; round < 40; round++) {
      const id = `raced-create-${round}`;
      let done = false;
      const deleter = deleteAsSoonAsItExists(id, () => done);
      const created = await service.request<Tenant>(createPath, {
        method: 'POST',
        query: { id, label: 'Raced' },
      });
      done = true;
      await deleter;
      statuses.push(created.status);
      if (created.status === 201) expect(created.body.id).toBe(id);
    }
    expect(statuses.filter((status) => status !== 201)).toEqual([]);
  }, 60_000);

  it('answers 200 for every update it applied, and 404 only when it applied nothing', async () => {
    const requestIds = new Set<string>();
    let applied = 0;
    for (let round = 0; round < 40; round++) {
      const id = `raced-update-${round}`;
      expect(
        (await service.request(createPath, { method: 'POST', query: { id, label: 'A' } })).status,
      ).toBe(201);
      const requestId = `raced-update-request-${round}`;
      requestIds.add(requestId);
      const [updated] = await Promise.all([
        service.request<Tenant>(updatePath(id), {
          method: 'POST',
          query: { label: 'B' },
          headers: { 'x-request-id': requestId },
        }),
        service.request(deletePath(id), { method: 'POST' }),
      ]);
      expect([200, 404]).toContain(updated.status);
      if (updated.status === 200) {
        applied += 1;
        expect(updated.body).toMatchObject({ id, label: 'B' });
      }
    }
    expect(auditLinesOf('tenant.update', requestIds)).toBe(applied);
  }, 60_000);
});
