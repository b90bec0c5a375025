import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DataSource } from 'typeorm';
import { createDataSource } from '../../src/database/data-source.js';

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

function adminUrl(): string {
  const url = process.env.AGENT_TEST_ADMIN_URL;
  if (url === undefined) throw new Error('The Jest global setup did not run');
  return url;
}

/** A fresh database copied from the migrated template: each test file gets its own. */
export async function createTestDatabase(): Promise<string> {
  const template = process.env.AGENT_TEST_TEMPLATE!;
  const name = `${template}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl(), name);
}

/** An empty database (no migrations), for testing the migrations themselves. */
export async function createEmptyDatabase(): Promise<string> {
  const name = `${process.env.AGENT_TEST_TEMPLATE!}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl(), name);
}

/** Runs one query on a database outside the app, to look at what it really stored. */
export async function queryDatabase<Row extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A `tenant` row as PostgreSQL returns it. */
export interface TenantRow {
  id: string;
  label: string;
  image_url: string | null;
  created_at: Date;
  updated_at: Date;
}

/** A `tenant_did` row as PostgreSQL returns it. */
export interface DidRow {
  did: string;
  tenant_id: string;
  method: string;
  key_type: string;
  public_key: Buffer;
  private_key_sealed: Buffer;
  master_key_id: string;
  created_at: Date;
}

/**
 * The app's DataSource on a fresh test database for the enclosing describe: made before its tests,
 * destroyed after them. Read `dataSource` and `url` inside the tests.
 */
export function useTestDataSource(): { readonly dataSource: DataSource; readonly url: string } {
  const state: { dataSource?: DataSource; url?: string } = {};
  beforeAll(async () => {
    state.url = await createTestDatabase();
    state.dataSource = createDataSource(state.url);
    await state.dataSource.initialize();
  });
  afterAll(async () => {
    await state.dataSource?.destroy();
  });
  return {
    get dataSource() {
      if (state.dataSource === undefined) throw new Error('Read the DataSource inside a test');
      return state.dataSource;
    },
    get url() {
      if (state.url === undefined) throw new Error('Read the URL inside a test');
      return state.url;
    },
  };
}
