import { rm } from 'node:fs/promises';
import pg from 'pg';

export default async function globalTeardown() {
  const state = globalThis.agentTestDatabase;
  if (state === undefined) return;
  if (state.embedded !== undefined) {
    await state.embedded.stop();
    await rm(state.directory, { recursive: true, force: true });
    return;
  }
  // On an external server, remove what this run created.
  const admin = new pg.Client({ connectionString: state.adminUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(
      `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
      [state.template, `${state.template}\\_%`],
    );
    for (const { datname } of rows)
      await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
