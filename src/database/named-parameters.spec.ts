import { NamedStatement } from './named-parameters.js';

describe(NamedStatement.name, () => {
  it('numbers each name at its first use, and a name used again keeps its number', () => {
    const statement = new NamedStatement<{ tenant: string; id: string }>(
      'SELECT 1 FROM t WHERE tenant_id = :tenant AND id = :id AND owner = :tenant',
    );
    expect(statement.text).toBe('SELECT 1 FROM t WHERE tenant_id = $1 AND id = $2 AND owner = $1');
    expect(statement.values({ id: 'b', tenant: 'a' })).toEqual(['a', 'b']);
  });

  it('leaves casts, quoted literals and quoted names alone', () => {
    const statement = new NamedStatement<{ at: string }>(
      `SELECT to_char(:at::timestamptz, 'HH24:MI:SS') AS ":label", ':nothing'`,
    );
    expect(statement.text).toBe(
      `SELECT to_char($1::timestamptz, 'HH24:MI:SS') AS ":label", ':nothing'`,
    );
  });

  it('refuses values that lack a name the statement uses', () => {
    const statement = new NamedStatement<{ id: string }>('SELECT :id');
    expect(() => statement.values({} as { id: string })).toThrow(':id');
  });
});
