import {
  QueryFailedError,
  QueryRunnerAlreadyReleasedError,
  QueryRunnerProviderAlreadyReleasedError,
} from 'typeorm';
import {
  DependencyUnavailableError,
  isDependencyUnavailable,
} from './dependency-unavailable.error.js';

describe(isDependencyUnavailable.name, () => {
  it('knows the outage itself and the outage TypeORM wrapped', () => {
    const outage = new DependencyUnavailableError('The database is unavailable: timeout');
    expect(isDependencyUnavailable(outage)).toBe(true);
    expect(isDependencyUnavailable(new QueryFailedError('SELECT 1', [], outage))).toBe(true);
  });

  it('knows the query runner TypeORM released when its connection failed mid-transaction', () => {
    expect(isDependencyUnavailable(new QueryRunnerAlreadyReleasedError())).toBe(true);
    expect(isDependencyUnavailable(new QueryRunnerProviderAlreadyReleasedError())).toBe(true);
  });

  it('leaves every other error alone, wrapped or not', () => {
    const refused = new Error('duplicate key value violates unique constraint');
    expect(isDependencyUnavailable(refused)).toBe(false);
    expect(isDependencyUnavailable(new QueryFailedError('INSERT', [], refused))).toBe(false);
    expect(isDependencyUnavailable(undefined)).toBe(false);
    expect(isDependencyUnavailable('text')).toBe(false);
  });
});
