/**
 * The one migration set, run on SQLite and PostgreSQL alike. Migrations are in code (no files to find
 * at run time) and named so that they sort in the order they must run.
 */
import { Migrator, type Kysely, type Migration } from 'kysely';
import { initial } from './001-initial.js';
import { metricsIndexes } from './002-metrics-indexes.js';
import { queueLeases } from './004-queue-leases.js';

const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-metrics-indexes': metricsIndexes,
  '004-queue-leases': queueLeases,
};

/** Brings the schema up to date; throws naming the migration that failed. */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`Database migration ${failed} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
