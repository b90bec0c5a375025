import { entities } from '../src/entities.js';
import { startTestService, type TestService } from './support/test-service.js';

describe('the entities', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });

  afterAll(async () => {
    await service?.close();
  });

  it('the app auto-loads from its feature modules are the list the CLIs and schema test use', () => {
    const names = (list: readonly { name: string }[]) => list.map((entity) => entity.name).sort();
    const loaded = service.dataSource.entityMetadatas.map((metadata) => metadata.target);
    expect(loaded.every((target) => typeof target === 'function')).toBe(true);
    expect(names(loaded as { name: string }[])).toEqual(names(entities));
    expect(new Set(loaded)).toEqual(new Set(entities));
  });
});
