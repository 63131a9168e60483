/**
 * PostgreSQL closing the store's idle connections (a server restart, an administrator terminating
 * them) does not end the process: the pool drops them and the next query opens a new connection.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PG_ADMIN_URL, openMigrated, testDatabases } from '../helpers/databases.js';

const postgres = (await testDatabases()).find((d) => d.name === 'postgres');

describe.skipIf(!postgres)('store on PostgreSQL', () => {
  afterAll(() => postgres?.cleanup());

  it('keeps working after the server terminated its idle connections', async () => {
    const db = await openMigrated(postgres!);
    try {
      const { rows } = await sql<{ db: string }>`select current_database() as db`.execute(db);
      const name = rows[0]!.db;
      const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
      await admin.connect();
      try {
        const killed = await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
        expect(killed.rowCount).toBeGreaterThan(0);
      } finally {
        await admin.end();
      }
      // Give the pool time to hear of the closed connections (its 'error' events) before using it.
      await new Promise((r) => setTimeout(r, 200));
      const again = await sql<{ one: number }>`select 1 as one`.execute(db);
      expect(again.rows[0]!.one).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
