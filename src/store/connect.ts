/**
 * Opens the store: SQLite (better-sqlite3, WAL) in a file under the data dir by default, or PostgreSQL
 * (a `pg` Pool) when a `postgres://` URL is given. Both speak the same schema through Kysely.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type SqliteDatabase as KyselySqlite,
  type SqliteStatement,
} from 'kysely';
import pg from 'pg';
import { redact } from '../lib/redact.js';
import type { Database } from './database.js';
import { migrateToLatest } from './migrations/index.js';

export type Db = Kysely<Database>;

/** PostgreSQL returns int8 as a string by default; every bigint here is a millisecond time or an id. */
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === PG_INT8
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Kysely prepares every SQLite statement anew, which costs more than running it. The same few SQL
 * texts come back all the time, so prepared statements are kept, the least recently used dropped
 * beyond `size`. Safe because the driver runs one statement at a time to completion (no streaming).
 */
function statementCache(db: SqliteDatabase.Database, size = 256): (sql: string) => SqliteDatabase.Statement {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (stmt) cache.delete(sql);
    else stmt = db.prepare(sql);
    cache.set(sql, stmt);
    if (cache.size > size) cache.delete(cache.keys().next().value!);
    return stmt;
  };
}

/** Prepares a SELECT on the read connection of a SQLite store file. */
export type SqliteReader = (sql: string) => { all(parameters: readonly unknown[]): unknown[] };

const readers = new WeakMap<Db, SqliteReader>();
const pools = new WeakMap<Db, pg.Pool>();

/** The connection pool of a PostgreSQL store (for LISTEN, which needs a connection of its own); undefined for SQLite. */
export function pgPoolOf(db: Kysely<Database>): pg.Pool | undefined {
  return pools.get(db);
}

/**
 * The read connection of a SQLite store file, for reads outside transactions (prepared.ts): in WAL
 * mode it reads the last committed state, without waiting for the write transaction in progress
 * on the main connection, which Kysely's single-connection driver would make it wait for.
 * Undefined for PostgreSQL, an in-memory database, and transactions.
 */
export function sqliteReaderOf(db: Kysely<Database>): SqliteReader | undefined {
  return readers.get(db);
}

function openSqlite(file: string, readonly: boolean): SqliteDatabase.Database {
  const sqlite = new SqliteDatabase(file, { readonly });
  if (!readonly) {
    sqlite.pragma('journal_mode = WAL');
    // In WAL mode NORMAL never corrupts the database; a power cut may lose the last commits, a crash
    // of the process does not. FULL would sync on every commit.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
  }
  sqlite.pragma('busy_timeout = 5000');
  return sqlite;
}

export interface ConnectOptions {
  /** `postgres://…` / `postgresql://…`, `sqlite:<path>`, or null for `<dataDir>/greenline.db`. */
  databaseUrl: string | null;
  dataDir: string;
}

export function connect(opts: ConnectOptions): Db {
  const url = opts.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) {
    const pool = new pg.Pool({ connectionString: url, types: pgTypes, max: 10 });
    // An idle pooled connection that the server closes (a PostgreSQL restart, an administrator's
    // termination) is reported here; the pool drops it and the next query opens a new one. Without a
    // listener the event would be an uncaught exception that ends the process.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
    return db;
  }
  if (url && !url.startsWith('sqlite:')) {
    throw new Error(`Unsupported database URL "${url}": use postgres://user@host/db or sqlite:<path>`);
  }
  const file = url ? url.slice('sqlite:'.length) : join(opts.dataDir, 'greenline.db');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const writer = openSqlite(file, false);
  // An in-memory database exists only on its one connection.
  const reader = file === ':memory:' ? null : openSqlite(file, true);
  const prepare = statementCache(writer);
  const database: KyselySqlite = {
    prepare: (sql: string): SqliteStatement => prepare(sql),
    close: () => {
      reader?.close();
      writer.close();
    },
  };
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
  if (reader) readers.set(db, statementCache(reader));
  return db;
}

/**
 * How long `openStore` keeps trying a PostgreSQL server that is not up yet: one that refuses
 * connections, whose host name does not resolve yet, or that is starting up (SQLSTATE 57P03), as a
 * database container started beside greenline is for its first seconds.
 */
export interface DatabaseWait {
  /** From the first try; 0 for a single try. */
  forMs: number;
  /** Told, in a sentence, of each try that found the server not up yet. */
  onWait(sentence: string): void;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const NOT_UP_YET: ReadonlySet<unknown> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '57P03']);
const RETRY_MS = 1_000;

/**
 * Opens the store and brings its schema up to date: what the server and the admin commands do first.
 * A PostgreSQL server that cannot be reached (after `wait`, when given) is an error naming it (the URL
 * without its password), the cause, and what to check.
 */
export async function openStore(opts: ConnectOptions, wait?: DatabaseWait): Promise<Db> {
  const db = connect(opts);
  try {
    if (pools.has(db)) await reach(db, opts.databaseUrl!, wait);
    await migrateToLatest(db);
    return db;
  } catch (err) {
    await db.destroy().catch(() => undefined);
    throw err;
  }
}

async function reach(db: Db, url: string, wait?: DatabaseWait): Promise<void> {
  const now = wait?.now ?? Date.now;
  const sleep = wait?.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const start = now();
  for (let tries = 1; ; tries++) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (err) {
      const { code, message } = err as { code?: unknown; message?: unknown };
      // A host with several addresses fails with an AggregateError, whose message is empty.
      const cause = typeof message === 'string' && message !== '' ? message : String(code ?? err);
      const waited = now() - start;
      if (wait && NOT_UP_YET.has(code) && waited + RETRY_MS <= wait.forMs) {
        wait.onWait(
          `The database at ${redact(url)} is not up yet (${cause}): trying again in ${RETRY_MS / 1000} s, for up to ${wait.forMs / 1000} s.`,
        );
        await sleep(RETRY_MS);
        continue;
      }
      const after = tries > 1 ? ` (tried ${tries} times in ${Math.round(waited / 1000)} s)` : '';
      throw new Error(`Could not connect to the database at ${redact(url)}${after}: ${cause}. ${whatToCheck(code)}`, {
        cause: err,
      });
    }
  }
}

/** What to check for a connection failure, by the system error or PostgreSQL SQLSTATE code. */
function whatToCheck(code: unknown): string {
  const where = 'the URL comes from --database-url, GREENLINE_DATABASE_URL or databaseUrl in greenline.yaml';
  switch (code) {
    case 'ECONNREFUSED':
      return `Check that PostgreSQL is running and listens on that host and port, and that the URL is right (${where}).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Check the host name in the URL (${where}).`;
    case '3D000':
      return `Create the database (createdb), or fix its name in the URL (${where}).`;
    case '28000':
    case '28P01':
      return `Check the user and password in the URL and the server's pg_hba.conf (${where}).`;
    default:
      return `Check that PostgreSQL is running and reachable from here, and that the URL is right (${where}).`;
  }
}
