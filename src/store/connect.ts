/**
 * Opens the store: SQLite (better-sqlite3, WAL) in a file under the data dir by default, or PostgreSQL
 * (a `pg` Pool) when a `postgres://` URL is given. Both speak the same schema through Kysely.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type SqliteDatabase as KyselySqlite, type SqliteStatement } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';

export type Db = Kysely<Database>;

/** PostgreSQL returns int8 as a string by default; every bigint here is a millisecond time or an id. */
const PG_INT8 = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === PG_INT8 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * Kysely prepares every SQLite statement anew, which costs more than running it. The same few SQL
 * texts come back all the time, so prepared statements are kept, the least recently used dropped
 * beyond `size`. Safe because the driver runs one statement at a time to completion (no streaming).
 */
function withStatementCache(db: SqliteDatabase.Database, size = 256): KyselySqlite {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(sql: string): SqliteStatement {
      let stmt = cache.get(sql);
      if (stmt) cache.delete(sql);
      else stmt = db.prepare(sql);
      cache.set(sql, stmt);
      if (cache.size > size) cache.delete(cache.keys().next().value!);
      return stmt;
    },
  };
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
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  if (url && !url.startsWith('sqlite:')) {
    throw new Error(`Unsupported database URL "${url}": use postgres://user@host/db or sqlite:<path>`);
  }
  const file = url ? url.slice('sqlite:'.length) : join(opts.dataDir, 'greenline.db');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  // In WAL mode NORMAL never corrupts the database; a power cut may lose the last commits, a crash
  // of the process does not. FULL would sync on every commit.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}
