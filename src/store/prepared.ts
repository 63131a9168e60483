/**
 * Queries built and compiled once per dialect, then run with new values. Building and compiling a
 * Kysely query costs several times more than SQLite takes to run it (a join on indexed columns: about
 * 100 µs to build, 10 µs to run), so the queries of every request are prepared here.
 *
 * The query is built once with a marker in place of each value; the compiled SQL keeps a parameter
 * slot for each marker, and a call fills the slots with its values. The markers hold a NUL, which
 * no value of this store contains; one that ends up in the SQL text itself (not as a parameter) is
 * refused when the query is first compiled.
 *
 * A SELECT outside a transaction on a SQLite file runs on the store's read connection (connect.ts),
 * directly: it reads the last committed state and skips Kysely's executor and connection lock.
 */
import { SelectQueryNode, type Compilable, type CompiledQuery, type Kysely } from 'kysely';
import { sqliteReaderOf, type SqliteReader } from './connect.js';
import type { Database } from './database.js';
import { dialectOf, type DialectName } from './dialect.js';

export type Value = string | number | null;
export type Params = Record<string, Value>;

const MARK = '\u0000gl:';

/** Markers for the values of row `row`: an object whose every property is the marker of that name. */
const markers = <P>(row: number): P => new Proxy({}, { get: (_, name) => `${MARK}${row}.${String(name)}` }) as P;

/** Where a parameter's value comes from: a property of one of the call's rows, or a constant of the query. */
type Slot = { row: number; name: string; value?: undefined } | { row?: undefined; value: unknown };

interface Compiled {
  query: CompiledQuery;
  select: boolean;
  slots: Slot[];
  /** The statement on the read connection it last ran on (there is one store per process, but tests open many). */
  onReader?: { reader: SqliteReader; statement: ReturnType<SqliteReader> };
}

function compile(query: Compilable<unknown>): Compiled {
  const compiled = query.compile();
  if (compiled.sql.includes(MARK)) throw new Error(`A prepared query holds a value in its SQL text: ${compiled.sql}`);
  const slots = compiled.parameters.map((p): Slot => {
    if (typeof p !== 'string' || !p.startsWith(MARK)) return { value: p };
    const dot = p.indexOf('.', MARK.length);
    return { row: Number(p.slice(MARK.length, dot)), name: p.slice(dot + 1) };
  });
  return { query: compiled, select: SelectQueryNode.is(compiled.query), slots };
}

function run<R>(db: Kysely<Database>, c: Compiled, rows: readonly Params[]): Promise<R[]> {
  const parameters = c.slots.map((s) => (s.row === undefined ? s.value : rows[s.row]![s.name]));
  const reader = c.select ? sqliteReaderOf(db) : undefined;
  if (!reader) return db.executeQuery<R>({ ...c.query, parameters }).then((result) => result.rows);
  if (c.onReader?.reader !== reader) c.onReader = { reader, statement: reader(c.query.sql) };
  return Promise.resolve(c.onReader.statement.all(parameters) as R[]);
}

/** Calls `f`, turning what it throws into a rejected promise. */
function settled<T>(f: () => Promise<T>): Promise<T> {
  try {
    return f();
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * A query with named values: `build` receives markers typed as the values, and must use them for
 * everything that varies between calls. Returns the rows (none for a statement without RETURNING).
 */
export function prepare<P extends Params, R = unknown>(
  build: (db: Kysely<Database>, values: P) => Compilable<R>,
): (db: Kysely<Database>, values: P) => Promise<R[]> {
  const byDialect = new Map<DialectName, Compiled>();
  return (db, values) =>
    settled(() => {
      const dialect = dialectOf(db);
      let c = byDialect.get(dialect);
      if (!c) {
        c = compile(build(db, markers<P>(0)));
        byDialect.set(dialect, c);
      }
      return run<R>(db, c, [values]);
    });
}

/** Row counts whose statements are kept; a longer list is compiled for its call alone. */
const MAX_KEPT_ROWS = 16;

/**
 * A statement over a list of rows (a multi-row insert): compiled once per dialect and row count.
 * `build` receives one set of markers per row.
 */
export function prepareRows<Row extends Params, R = unknown>(
  build: (db: Kysely<Database>, rows: Row[]) => Compilable<R>,
): (db: Kysely<Database>, rows: Row[]) => Promise<R[]> {
  const kept = new Map<string, Compiled>();
  return (db, rows) =>
    settled(() => {
      const key = `${dialectOf(db)} ${rows.length}`;
      let c = kept.get(key);
      if (!c) {
        c = compile(
          build(
            db,
            rows.map((_, i) => markers<Row>(i)),
          ),
        );
        if (rows.length <= MAX_KEPT_ROWS) kept.set(key, c);
      }
      return run<R>(db, c, rows);
    });
}
