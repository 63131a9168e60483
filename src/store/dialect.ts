/**
 * The few places where SQLite and PostgreSQL differ, in one file: which dialect a handle speaks,
 * auto-increment columns, and row locks.
 */
import { PostgresAdapter, type ColumnDefinitionBuilder, type CreateTableBuilder, type Kysely } from 'kysely';

export type DialectName = 'sqlite' | 'postgres';

/** Any Kysely handle or transaction, whatever its schema type. */
type Handle = Pick<Kysely<unknown>, 'getExecutor'>;

export function dialectOf(db: Handle): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Adds an auto-increment integer primary key named `id`. */
export function withAutoId<T extends string>(
  db: Handle,
  table: CreateTableBuilder<T, never>,
): CreateTableBuilder<T, 'id'> {
  return dialectOf(db) === 'postgres'
    ? table.addColumn('id', 'bigserial', (c: ColumnDefinitionBuilder) => c.primaryKey())
    : table.addColumn('id', 'integer', (c: ColumnDefinitionBuilder) => c.primaryKey().autoIncrement());
}
