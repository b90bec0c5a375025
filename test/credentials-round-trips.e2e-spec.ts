import { isPlannedPerCall } from '../src/database/bounded-client.js';
import { startTestService, type TestService } from './support/test-service.js';
import { logStatements, type StatementLog } from './support/statement-log.js';
import { alumniCredential, issue, issuePath } from './support/credentials-harness.js';

/**
 * How many statements `POST /credentials/issue` sends PostgreSQL, counted on the service's pool: each
 * is a round trip, and round trips bound the row's throughput (docs/performance.md); and that none is
 * planned at each call. Counts, never times.
 */
describe('Credentials: issue round trips', () => {
  let service: TestService;
  let statements: StatementLog;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    // The tenant's first issue opens its revocation list.
    expect((await issue(service, 'demo', alumniCredential())).status).toBe(201);
    statements = logStatements(service.dataSource, service.app.getHttpServer());
  });
  afterAll(async () => {
    statements.restore();
    await service.close();
  });

  const issued = async (options?: Record<string, unknown>) => {
    const { result, statements: sent } = await statements.during(issuePath, () =>
      issue(service, 'demo', alumniCredential(), options),
    );
    expect(result.status).toBe(201);
    // Each planned once per connection: one planned at each call would cost PostgreSQL more than it saves.
    expect(sent.filter(isPlannedPerCall)).toEqual([]);
    return sent;
  };

  it('reads the key in the statement that records the issue and its entry: three in all', async () => {
    const sent = await issued();
    expect(sent).toEqual([
      'START TRANSACTION',
      expect.stringMatching(/^SELECT record_issue\(.* FROM tenant_did_key_of\(\$1\) AS key/),
      'COMMIT',
    ]);
  });

  it('reads the key before the record without a status entry: four in all', async () => {
    const sent = await issued({ credentialStatus: [] });
    expect(sent).toHaveLength(4);
    expect(sent[0]).toBe('START TRANSACTION');
    expect(sent[1]).toMatch(/FROM tenant_did WHERE tenant_id = \$1$/);
    expect(sent[2]).toMatch(/INSERT INTO issued_credential/);
    expect(sent[3]).toBe('COMMIT');
  });
});
