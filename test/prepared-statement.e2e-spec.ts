import { type DataSource } from 'typeorm';
import { createDataSource } from '../src/database/data-source.js';
import { isStalePlan, poolOf, PreparedStatement } from '../src/database/prepared-statement.js';
import { createTestDatabase, queryDatabase } from './support/database.js';

describe(PreparedStatement.name, () => {
  let dataSource: DataSource;
  let url: string;
  let failedQueries: number;

  beforeAll(async () => {
    url = await createTestDatabase();
    dataSource = createDataSource(url);
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource.destroy();
  });

  beforeEach(() => {
    failedQueries = 0;
    const pool = poolOf(dataSource);
    pool.removeAllListeners('release');
    pool.on('release', (error: Error | null | undefined) => {
      if (error) failedQueries++;
    });
  });

  it('answers the rows of the statement', async () => {
    await queryDatabase(url, "INSERT INTO tenant (id, label) VALUES ('prepared', 'Prepared')");
    const labels = new PreparedStatement<{ label: string }>(
      dataSource,
      'label-of-tenant',
      'SELECT label FROM tenant WHERE id = $1',
    );
    expect(await labels.rows(['prepared'])).toEqual([{ label: 'Prepared' }]);
    expect(await labels.rows(['nobody'])).toEqual([]);
    expect(failedQueries).toBe(0);
  });

  it('throws any error but a stale plan at once, without trying again', async () => {
    const broken = new PreparedStatement(dataSource, 'broken', 'SELECT no_such_column FROM tenant');
    const error = await broken.rows([]).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toMatchObject({ code: '42703' });
    expect(isStalePlan(error)).toBe(false);
    expect(failedQueries).toBe(1);
  });

  it('tries again on another connection when a column it reads changed type', async () => {
    const labels = new PreparedStatement<{ label: string }>(
      dataSource,
      'label-of-tenant-2',
      'SELECT label FROM tenant WHERE id = $1',
    );
    await Promise.all(Array.from({ length: 20 }, () => labels.rows(['prepared'])));
    await queryDatabase(url, 'ALTER TABLE tenant ALTER COLUMN label TYPE text');
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => labels.rows(['prepared'])),
      );
      expect(answers.every((rows) => rows[0]?.label === 'Prepared')).toBe(true);
      // The connections that had prepared it failed once each and left the pool.
      expect(failedQueries).toBeGreaterThan(0);
    } finally {
      await queryDatabase(url, 'ALTER TABLE tenant ALTER COLUMN label TYPE varchar(200)');
    }
  });
});
