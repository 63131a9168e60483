/**
 * The databases the tests run on: SQLite always; PostgreSQL (127.0.0.1:5432, user postgres) when
 * reachable, required when CI=true (an unreachable server fails the tests instead of skipping them).
 *
 * vitest.config.ts runs the service and API tests twice, as the projects `sqlite` and `postgres`, and
 * sets GREENLINE_TEST_DATABASE to the project's database:
 * - `createTestService` (and what builds on it: `createApiHarness`, `createQueueFixture`) opens that
 *   database. On PostgreSQL each test service gets a database of its own, a copy of a migrated template
 *   database (`CREATE DATABASE … TEMPLATE`, made once per run by pg-template.setup.ts) the first time,
 *   emptied for the next service of the same worker (see migratedServiceDatabase).
 * - `testDatabases()`, which a file loops over to run its tests on every database itself, returns
 *   only the project's database, so such a file runs once on each database, never twice on one.
 * Files outside those projects (store tests, end-to-end tests) have no GREENLINE_TEST_DATABASE:
 * `testDatabases()` returns both databases and `createTestService` opens SQLite.
 */
import { inject } from 'vitest';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import {
  createPgDatabase,
  dropPgDatabase,
  PG_ADMIN_URL,
  PG_REQUIRED_MESSAGE,
  pgReachable,
  pgUrl,
  resetPgDatabase,
  TEST_DATABASE_ENV,
} from './pg-admin.js';

export { PG_ADMIN_URL };

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated template database of the `postgres` project (pg-template.setup.ts). */
    pgTemplate: string;
  }
}

export type DatabaseName = 'sqlite' | 'postgres';

export interface TestDatabase {
  name: DatabaseName;
  /** A database URL for a fresh, empty database (PostgreSQL: created on demand). */
  url(): Promise<string>;
  /** Drops what `url()` created. */
  cleanup(): Promise<void>;
}

/** The database of the test project (GREENLINE_TEST_DATABASE), undefined outside the database projects. */
export function projectDatabase(): DatabaseName | undefined {
  const value = process.env[TEST_DATABASE_ENV];
  if (value === undefined || value === '') return undefined;
  if (value === 'sqlite' || value === 'postgres') return value;
  throw new Error(`${TEST_DATABASE_ENV} is "${value}"; use sqlite or postgres`);
}

function postgres(): TestDatabase {
  const created: string[] = [];
  return {
    name: 'postgres',
    async url() {
      const name = await createPgDatabase('greenline_test');
      created.push(name);
      return pgUrl(name);
    },
    async cleanup() {
      for (const name of created.splice(0)) await dropPgDatabase(name);
    },
  };
}

const sqlite: TestDatabase = { name: 'sqlite', url: async () => 'sqlite::memory:', cleanup: async () => undefined };

/** The databases to run on. Logs a visible notice when PostgreSQL is skipped. */
export async function testDatabases(): Promise<TestDatabase[]> {
  const only = projectDatabase();
  if (only === 'sqlite') return [sqlite];
  if (await pgReachable()) return only === 'postgres' ? [postgres()] : [sqlite, postgres()];
  if (only === 'postgres' || process.env.CI === 'true') throw new Error(PG_REQUIRED_MESSAGE);
  console.warn(`NOTICE: PostgreSQL at ${PG_ADMIN_URL} is unreachable; store tests run on SQLite only`);
  return [sqlite];
}

/** The PostgreSQL service databases of this process (see migratedServiceDatabase) in use, by number. */
const inUse = new Set<number>();

/**
 * A migrated, empty database for one test service on the project's database, and how to give it up.
 * On PostgreSQL a service has a database to itself while open: each worker process numbers the
 * databases of the services it has open; the first service with a number creates that database from
 * the template, a later one (of this file or a later file run by the same worker) empties it. The
 * template's teardown drops them all.
 */
export async function migratedServiceDatabase(): Promise<{ url: string; release(): void }> {
  if (projectDatabase() !== 'postgres') return { url: 'sqlite::memory:', release: () => undefined };
  const template = inject('pgTemplate');
  let n = 0;
  while (inUse.has(n)) n++;
  inUse.add(n);
  // VITEST_POOL_ID numbers the worker slots: two files running at once never share one.
  const name = `${template}_${process.env.VITEST_POOL_ID ?? process.pid}_${n}`;
  try {
    await resetPgDatabase(name, template);
  } catch (err) {
    inUse.delete(n);
    throw err;
  }
  return { url: pgUrl(name), release: () => inUse.delete(n) };
}

/** Opens a migrated store on a fresh database. */
export async function openMigrated(database: TestDatabase): Promise<Db> {
  const db = connect({ databaseUrl: await database.url(), dataDir: '' });
  await migrateToLatest(db);
  return db;
}
