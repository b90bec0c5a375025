import pg from 'pg';
import { DependencyUnavailableError } from '../common/problem/dependency-unavailable.error.js';
import { asUnavailable } from './connection-errors.js';

function serverError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError('refused by the server', 0, 'error');
  error.code = code;
  return error;
}

describe(asUnavailable.name, () => {
  it.each(['23505', '23503', '42P01', '0A000', '22P02'])(
    'passes a server error about the statement (%s) unchanged',
    (code) => {
      const error = serverError(code);
      expect(asUnavailable(error)).toBe(error);
    },
  );

  it.each(['57014', '55P03', '57P01', '57P03', '53300', '40P01', '40001'])(
    'makes the server state %s a dependency outage, keeping the cause',
    (code) => {
      const error = serverError(code);
      const translated = asUnavailable(error);
      expect(translated).toBeInstanceOf(DependencyUnavailableError);
      expect((translated as Error).cause).toBe(error);
    },
  );

  it('makes whatever the client or the pool raised itself a dependency outage', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
      code: 'ECONNREFUSED',
    });
    for (const error of [refused, new Error('timeout'), 'not even an error']) {
      expect(asUnavailable(error)).toBeInstanceOf(DependencyUnavailableError);
    }
  });
});
