import { readdirSync, readFileSync } from 'node:fs';
import { createTestDatabase, queryDatabase } from './support/database.js';

/** Every entity's table with the folder of src/ that declares it (`credentials/status`). */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const path of readdirSync('src', { recursive: true, encoding: 'utf8' })) {
    if (!path.endsWith('.entity.ts')) continue;
    for (const [, table] of readFileSync(`src/${path}`, 'utf8').matchAll(
      /@Entity\(\{ name: '(\w+)'/g,
    ))
      owners.set(table, path.slice(0, path.lastIndexOf('/')));
  }
  return owners;
}

/** The text of a folder's own files, where its owner documents what it publishes. */
function sourceOf(folder: string): string {
  return readdirSync(`src/${folder}`)
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(`src/${folder}/${name}`, 'utf8'))
    .join('\n');
}

/**
 * What a folder publishes for other folders' statements (docs/architecture.md, "Data: one owner per
 * table"): house/own-sql keeps a folder's SQL to its own tables, this keeps each published function
 * and view to the tables of one owner, which documents it.
 */
describe('published statements', () => {
  it('each read and write the tables of one folder, which names them', async () => {
    const url = await createTestDatabase();
    // The tables each function or view of the schema depends on, as PostgreSQL recorded them (an
    // extension's functions are not the app's).
    const published = await queryDatabase<{ name: string; standard: boolean; tables: string[] }>(
      url,
      `SELECT o.name, o.standard,
              coalesce(array_agg(DISTINCT t.relname::text) FILTER (WHERE t.relname IS NOT NULL),
                       '{}') AS tables
         FROM (SELECT p.oid, p.proname AS name, 'pg_proc'::regclass AS classid,
                      p.prosqlbody IS NOT NULL AS standard, 0::oid AS self
                 FROM pg_proc p
                WHERE p.pronamespace = 'public'::regnamespace
                  AND NOT EXISTS (SELECT 1 FROM pg_depend x
                                   WHERE x.classid = 'pg_proc'::regclass AND x.objid = p.oid
                                     AND x.deptype = 'e')
               UNION ALL
               SELECT r.oid, c.relname, 'pg_rewrite'::regclass, true, c.oid
                 FROM pg_class c JOIN pg_rewrite r ON r.ev_class = c.oid
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')) o
         LEFT JOIN pg_depend d
           ON d.classid = o.classid AND d.objid = o.oid AND d.refclassid = 'pg_class'::regclass
         LEFT JOIN pg_class t ON t.oid = d.refobjid AND t.oid <> o.self AND t.relkind IN ('r', 'p')
        GROUP BY o.name, o.standard
        ORDER BY o.name`,
    );
    expect(published.map((row) => row.name)).toEqual(
      expect.arrayContaining([
        'allocate_status_entries',
        'credential_status',
        'enqueue_webhook_event',
      ]),
    );
    const owners = tableOwners();
    for (const { name, standard, tables } of published) {
      // A body PostgreSQL parsed when it was created (BEGIN ATOMIC), so that its tables are known.
      expect([name, standard]).toEqual([name, true]);
      const folders = [...new Set(tables.map((table) => owners.get(table) ?? `none: ${table}`))];
      expect([name, folders]).toEqual([
        name,
        [expect.stringMatching(/^[a-z0-9-]+(\/[a-z0-9-]+)*$/)],
      ]);
      const documented = new RegExp(`\\b${name}\\b`).test(sourceOf(folders[0]));
      expect([name, folders[0], documented]).toEqual([name, folders[0], true]);
    }
  }, 60_000);
});
