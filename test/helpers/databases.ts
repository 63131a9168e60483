/**
 * The databases every store test runs on: SQLite always; PostgreSQL (127.0.0.1:5432, user postgres)
 * when reachable. Each test file gets its own uniquely named PostgreSQL database, dropped afterwards.
 * With CI=true PostgreSQL is required: an unreachable server fails the tests instead of skipping them.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';

export const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** A database URL for a fresh, empty database (PostgreSQL: created on demand). */
  url(): Promise<string>;
  /** Drops what `url()` created. */
  cleanup(): Promise<void>;
}

async function pgReachable(): Promise<boolean> {
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

function postgres(): TestDatabase {
  const created: string[] = [];
  const admin = async <T>(sql: string): Promise<T> => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      return (await client.query(sql)) as T;
    } finally {
      await client.end();
    }
  };
  return {
    name: 'postgres',
    async url() {
      const name = `greenline_test_${randomBytes(6).toString('hex')}`;
      await admin(`CREATE DATABASE ${name}`);
      created.push(name);
      return PG_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`);
    },
    async cleanup() {
      for (const name of created.splice(0)) {
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
    },
  };
}

/** The databases to run on. Logs a visible notice when PostgreSQL is skipped. */
export async function testDatabases(): Promise<TestDatabase[]> {
  const sqlite: TestDatabase = { name: 'sqlite', url: async () => 'sqlite::memory:', cleanup: async () => undefined };
  if (await pgReachable()) return [sqlite, postgres()];
  if (process.env.CI === 'true') {
    throw new Error(`PostgreSQL is required when CI=true but ${PG_ADMIN_URL} is unreachable`);
  }
  console.warn(`NOTICE: PostgreSQL at ${PG_ADMIN_URL} is unreachable; store tests run on SQLite only`);
  return [sqlite];
}

/** Opens a migrated store on a fresh database. */
export async function openMigrated(database: TestDatabase): Promise<Db> {
  const db = connect({ databaseUrl: await database.url(), dataDir: '' });
  await migrateToLatest(db);
  return db;
}
