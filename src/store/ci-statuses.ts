/** CI statuses reported for test runs: one row per (run, context), the latest report wins. */
import type { Kysely } from 'kysely';
import type { CiStatusRow, Database, TestRunRow } from './database.js';

export async function upsertCiStatus(db: Kysely<Database>, row: CiStatusRow): Promise<void> {
  await db
    .insertInto('ci_statuses')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['run_id', 'context']).doUpdateSet((eb) => ({
        state: eb.ref('excluded.state'),
        url: eb.ref('excluded.url'),
        description: eb.ref('excluded.description'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function listCiStatuses(db: Kysely<Database>, runId: string): Promise<CiStatusRow[]> {
  return db.selectFrom('ci_statuses').selectAll().where('run_id', '=', runId).orderBy('context').execute();
}

/** Forgets a run's statuses (its CI runs again on the same commit). */
export async function deleteCiStatuses(db: Kysely<Database>, runId: string): Promise<void> {
  await db.deleteFrom('ci_statuses').where('run_id', '=', runId).execute();
}

/** The queue's runs in flight testing a known commit, with their required statuses fixed. */
function runsUnderTest(db: Kysely<Database>, queueId: string) {
  return db
    .selectFrom('test_runs')
    .selectAll()
    .where('queue_id', '=', queueId)
    .where('status', '=', 'in_progress')
    .where('test_sha', 'is not', null)
    .where('required_statuses', 'is not', null)
    .orderBy('created_at');
}

/**
 * The queue's runs testing a known commit, with their required statuses fixed, for which no status
 * was recorded since `since`: runs whose CI may have reported what greenline did not hear.
 */
export async function listQuietRuns(db: Kysely<Database>, queueId: string, since: number): Promise<TestRunRow[]> {
  return runsUnderTest(db, queueId)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('ci_statuses')
            .select('ci_statuses.run_id')
            .whereRef('ci_statuses.run_id', '=', 'test_runs.id')
            .where('ci_statuses.updated_at', '>=', since),
        ),
      ),
    )
    .execute();
}

/** The queue's runs in flight testing a known commit, with their required statuses fixed. */
export async function listRunsUnderTest(db: Kysely<Database>, queueId: string): Promise<TestRunRow[]> {
  return runsUnderTest(db, queueId).execute();
}
