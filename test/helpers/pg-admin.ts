/**
 * Creating and dropping PostgreSQL test databases on the test server (127.0.0.1:5432, user postgres,
 * trust auth). No store code here: vitest.config.ts imports it to decide which projects run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The environment variable naming the database of the test project (`sqlite` or `postgres`). */
export const TEST_DATABASE_ENV = 'GREENLINE_TEST_DATABASE';

export const PG_REQUIRED_MESSAGE = `PostgreSQL is required when CI=true but ${PG_ADMIN_URL} is unreachable`;

export async function pgReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function admin<T = unknown>(sql: string, url = PG_ADMIN_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)) as T;
  } finally {
    await client.end();
  }
}

/** The URL of database `name` on the test server. */
export const pgUrl = (name: string): string => PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);

/**
 * Creates a uniquely named database (a copy of `template` when given) and returns its name. Test
 * databases need no durability: commits do not wait for the disk.
 */
export async function createPgDatabase(prefix: string, template?: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await createNamed(name, template);
  return name;
}

async function createNamed(name: string, template?: string): Promise<void> {
  await admin(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin(`ALTER DATABASE ${name} SET synchronous_commit = off`);
}

/** Deletes every row but the migration bookkeeping (foreign keys unchecked meanwhile). */
const EMPTY_TABLES = `DO $$
DECLARE t text;
BEGIN
  PERFORM set_config('session_replication_role', 'replica', true);
  FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND NOT starts_with(tablename, 'kysely_') LOOP
    EXECUTE format('DELETE FROM %I', t);
  END LOOP;
END $$`;

/**
 * Database `name` as a copy of `template` holds it: created from it the first time, emptied of rows
 * afterwards (the template's tables hold none). Much faster than dropping and copying it again: a
 * DROP DATABASE takes about a second.
 */
export async function resetPgDatabase(name: string, template: string): Promise<void> {
  try {
    await admin(EMPTY_TABLES, pgUrl(name));
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') throw err; // 3D000: no such database
    await createNamed(name, template);
  }
}

/** Drops every database whose name starts with `prefix`. */
export async function dropPgDatabases(prefix: string): Promise<void> {
  const { rows } = await admin<{ rows: { datname: string }[] }>(
    `SELECT datname FROM pg_database WHERE starts_with(datname, '${prefix}')`,
  );
  for (const { datname } of rows) await dropPgDatabase(datname);
}

export async function dropPgDatabase(name: string): Promise<void> {
  // Pools a test just closed may still be saying goodbye: a forced drop would end those sessions
  // with a FATAL error that their closing clients no longer listen for. Give them a moment first.
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    const { rows } = await admin<{ rows: { n: number }[] }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${name}'`,
    );
    if (rows[0]!.n === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
