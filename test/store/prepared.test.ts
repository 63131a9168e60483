/** Prepared queries: compiled once, run with each call's values, on SQLite (memory and file) and PostgreSQL. */
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect, sqliteReaderOf, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { insertOrg } from '../../src/store/orgs.js';
import { prepare, prepareRows } from '../../src/store/prepared.js';
import { openMigrated, testDatabases, type TestDatabase } from '../helpers/databases.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

const dir = await makeTempDir('greenline-prepared-');
afterAll(() => removeTempDir(dir));
let files = 0;
const sqliteFile: TestDatabase = {
  name: 'sqlite',
  url: async () => `sqlite:${path.join(dir, `store-${++files}.db`)}`,
  cleanup: async () => undefined,
};
const databases = [
  ...(await testDatabases()).map((d) => ({ label: d.name, database: d })),
  { label: 'sqlite file', database: sqliteFile },
];

describe.each(databases)('prepared queries on $label', ({ database }) => {
  let db: Db;
  beforeEach(async () => {
    db = await openMigrated(database);
  });
  afterEach(async () => {
    await db.destroy();
    await database.cleanup();
  });

  it("build once per dialect and return the rows of each call's values", async () => {
    let builds = 0;
    const orgNamed = prepare((d, p: { name: string }) => {
      builds++;
      return d.selectFrom('orgs').select(['id', 'created_at']).where('name', '=', p.name);
    });
    await insertOrg(db, { id: 'o1', name: 'acme', created_at: 1 });
    await insertOrg(db, { id: 'o2', name: 'beta', created_at: 2 });
    expect(await orgNamed(db, { name: 'acme' })).toEqual([{ id: 'o1', created_at: 1 }]);
    expect(await orgNamed(db, { name: 'beta' })).toEqual([{ id: 'o2', created_at: 2 }]);
    expect(await orgNamed(db, { name: 'nope' })).toEqual([]);
    expect(builds).toBe(1);
  });

  it('run writes, and the same statement inside a transaction', async () => {
    const rename = prepare((d, p: { id: string; name: string }) =>
      d.updateTable('orgs').set({ name: p.name }).where('id', '=', p.id),
    );
    const nameOf = prepare((d, p: { id: string }) => d.selectFrom('orgs').select('name').where('id', '=', p.id));
    await insertOrg(db, { id: 'o1', name: 'acme', created_at: 1 });
    await rename(db, { id: 'o1', name: 'acme-2' });
    expect(await nameOf(db, { id: 'o1' })).toEqual([{ name: 'acme-2' }]);
    await db.transaction().execute(async (trx) => {
      await rename(trx, { id: 'o1', name: 'acme-3' });
      expect(await nameOf(trx, { id: 'o1' })).toEqual([{ name: 'acme-3' }]);
    });
    expect(await nameOf(db, { id: 'o1' })).toEqual([{ name: 'acme-3' }]);
  });

  it('insert lists of rows of any length, the kept and the one-off lengths alike', async () => {
    const insert = prepareRows((d, rows: { id: string; name: string; at: number }[]) =>
      d.insertInto('orgs').values(rows.map((r) => ({ id: r.id, name: r.name, created_at: r.at }))),
    );
    const count = async () =>
      (
        await db
          .selectFrom('orgs')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const rows = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `o${from + i}`, name: `org-${from + i}`, at: from + i }));
    await insert(db, rows(0, 1));
    await insert(db, rows(1, 3));
    await insert(db, rows(4, 3));
    await insert(db, rows(7, 40));
    expect(Number(await count())).toBe(47);
    expect(await db.selectFrom('orgs').select(['name', 'created_at']).where('id', '=', 'o46').execute()).toEqual([
      { name: 'org-46', created_at: 46 },
    ]);
  });

  it('refuse a query that puts a value into its SQL text', async () => {
    const unsafe = prepare((d, p: { name: string }) =>
      d.selectFrom('orgs').selectAll().where('name', '=', sql.lit(p.name)),
    );
    await expect(unsafe(db, { name: 'acme' })).rejects.toThrow(/value in its SQL text/);
  });
});

describe('reads on a SQLite file', () => {
  let db: Db;
  beforeEach(async () => {
    db = connect({ databaseUrl: await sqliteFile.url(), dataDir: '' });
    await migrateToLatest(db);
  });
  afterEach(() => db.destroy());

  it('have a read connection; an in-memory database has none', async () => {
    expect(sqliteReaderOf(db)).toBeDefined();
    const memory = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
    expect(sqliteReaderOf(memory)).toBeUndefined();
    await memory.destroy();
  });

  it('outside a transaction see the last commit without waiting for the transaction in progress', async () => {
    const names = prepare((d, p: { from: number }) =>
      d.selectFrom('orgs').select('name').where('created_at', '>=', p.from).orderBy('name'),
    );
    await insertOrg(db, { id: 'o1', name: 'acme', created_at: 1 });
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inside: unknown;
    let opened!: () => void;
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const writing = db.transaction().execute(async (trx) => {
      await insertOrg(trx, { id: 'o2', name: 'beta', created_at: 2 });
      inside = await names(trx, { from: 0 });
      opened();
      await held;
    });
    await open;
    // The transaction is open and holds the main connection: this read would wait on it there.
    expect(await names(db, { from: 0 })).toEqual([{ name: 'acme' }]);
    expect(inside).toEqual([{ name: 'acme' }, { name: 'beta' }]);
    release();
    await writing;
    expect(await names(db, { from: 0 })).toEqual([{ name: 'acme' }, { name: 'beta' }]);
  });
});
