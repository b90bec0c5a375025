import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { violates } from './constraint-violation.js';

function serverError(code: string, constraint?: string): pg.DatabaseError {
  const error = new pg.DatabaseError('refused by the server', 0, 'error');
  error.code = code;
  error.constraint = constraint;
  return error;
}

describe(violates.name, () => {
  it('knows a unique violation, wrapped by TypeORM or not, by its name when asked', () => {
    const error = serverError('23505', 'tenant_pkey');
    expect(violates(error, 'unique')).toBe(true);
    expect(violates(new QueryFailedError('INSERT', [], error), 'unique', 'tenant_pkey')).toBe(true);
    expect(violates(error, 'unique', 'issued_credential_pkey')).toBe(false);
    expect(violates(error, 'foreign-key')).toBe(false);
  });

  it('knows a foreign key violation', () => {
    expect(violates(serverError('23503', 'webhook_subscription_tenant_fk'), 'foreign-key')).toBe(
      true,
    );
  });

  it('is false for other server errors and for errors that are not the server', () => {
    expect(violates(serverError('57014'), 'unique')).toBe(false);
    expect(violates(new Error('23505'), 'unique')).toBe(false);
    expect(violates({ code: '23505', driverError: { code: '23505' } }, 'unique')).toBe(false);
    expect(violates(undefined, 'unique')).toBe(false);
  });
});
