import { AuthorizationPurge } from './authorization-purge.js';
import { type AuthorizationRepository } from './authorization.repository.js';

describe(AuthorizationPurge.name, () => {
  it('deletes authorizations past their time in batches until a batch comes back short', async () => {
    const batches = [1000, 1000, 3];
    const asked: Date[] = [];
    const repository = {
      deleteExpiredBatch: (now: Date, limit: number) => {
        asked.push(now);
        expect(limit).toBe(1000);
        return Promise.resolve(batches.shift() ?? 0);
      },
    } as unknown as AuthorizationRepository;
    const purge = new AuthorizationPurge(repository, () => Date.parse('2026-11-29T10:00:00Z'));
    expect(await purge.purgeExpired()).toBe(2003);
    expect(asked.map((now) => now.toISOString())).toEqual(
      Array(3).fill('2026-11-29T10:00:00.000Z'),
    );
  });
});
