/** Test runs. The whole TestRun is JSON in `data`; the other columns are copies for queries. */
import { type Kysely, sql } from 'kysely';
import type { TestRun } from '../engine/types.js';
import type { Database, TestRunRow } from './database.js';
import { prepare, prepareRows } from './prepared.js';

export const runOf = (row: Pick<TestRunRow, 'data'>): TestRun => JSON.parse(row.data) as TestRun;

type RunWrite = Pick<TestRunRow, 'id' | 'queue_id' | 'status' | 'test_sha' | 'created_at' | 'data'>;

const runsUpsert = prepareRows((db, rows: RunWrite[]) =>
  db
    .insertInto('test_runs')
    .values(
      rows.map((r) => ({
        id: r.id,
        queue_id: r.queue_id,
        status: r.status,
        test_sha: r.test_sha,
        created_at: r.created_at,
        data: r.data,
        required_statuses: null,
        required_statuses_source: null,
      })),
    )
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'),
        // The test commit told before the engine heard of it (setRunTestSha) is kept until it has.
        test_sha: sql<string | null>`coalesce(${eb.ref('excluded.test_sha')}, test_runs.test_sha)`,
        data: eb.ref('excluded.data'),
      })),
    ),
);

/**
 * Inserts or updates runs; the resolved required statuses of an existing run are kept, and so is a
 * test commit recorded before the run's own data has it.
 */
export async function upsertRuns(db: Kysely<Database>, queueId: string, runs: TestRun[]): Promise<void> {
  if (runs.length === 0) return;
  await runsUpsert(
    db,
    runs.map((r) => ({
      id: r.id,
      queue_id: queueId,
      status: r.status,
      test_sha: r.testSha,
      created_at: r.createdAt,
      data: JSON.stringify(r),
    })),
  );
}

const runRow = prepare((db, p: { id: string }) => db.selectFrom('test_runs').selectAll().where('id', '=', p.id));

export async function findRunRow(db: Kysely<Database>, runId: string): Promise<TestRunRow | undefined> {
  return (await runRow(db, { id: runId }))[0];
}

/** Runs of a queue that are in one of `statuses` or whose id is in `ids`. */
export async function listRunsForSnapshot(
  db: Kysely<Database>,
  queueId: string,
  statuses: readonly string[],
  ids: readonly string[],
): Promise<TestRun[]> {
  if (statuses.length === 0 && ids.length === 0) return [];
  const rows = await db
    .selectFrom('test_runs')
    .select('data')
    .where('queue_id', '=', queueId)
    .where((eb) =>
      eb.or([
        ...(statuses.length > 0 ? [eb('status', 'in', [...statuses])] : []),
        ...(ids.length > 0 ? [eb('id', 'in', [...ids])] : []),
      ]),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(runOf);
}

/** The most recent run of a repository whose test commit is `sha`. */
export async function findRunRowByTestSha(
  db: Kysely<Database>,
  repoId: string,
  sha: string,
): Promise<TestRunRow | undefined> {
  return db
    .selectFrom('test_runs')
    .innerJoin('queues', 'queues.id', 'test_runs.queue_id')
    .selectAll('test_runs')
    .where('queues.repo_id', '=', repoId)
    .where('test_runs.test_sha', '=', sha)
    .orderBy('test_runs.created_at', 'desc')
    .executeTakeFirst();
}

/**
 * Records the run's test commit as soon as it is built, before it is published and before the engine
 * hears of it (testBranchCreated), so that what CI reports on it finds the run (findRunRowByTestSha).
 */
export async function setRunTestSha(db: Kysely<Database>, runId: string, sha: string): Promise<void> {
  await db.updateTable('test_runs').set({ test_sha: sha }).where('id', '=', runId).execute();
}

/**
 * Records which statuses decide the run, where that list came from, and which instance's built-in CI
 * runs its command (null: external CI only).
 */
export async function setRunRequiredStatuses(
  db: Kysely<Database>,
  runId: string,
  statuses: string[],
  source: string,
  ciInstance: string | null = null,
): Promise<void> {
  await db
    .updateTable('test_runs')
    .set({ required_statuses: JSON.stringify(statuses), required_statuses_source: source, ci_instance: ciInstance })
    .where('id', '=', runId)
    .execute();
}

/**
 * Runs of a queue still in progress whose built-in CI was started by an instance other than `holder`:
 * after a takeover, CI that died with its instance.
 */
export async function listRunsWithForeignCi(
  db: Kysely<Database>,
  queueId: string,
  holder: string,
): Promise<TestRunRow[]> {
  return db
    .selectFrom('test_runs')
    .selectAll()
    .where('queue_id', '=', queueId)
    .where('status', '=', 'in_progress')
    .where('required_statuses', 'is not', null)
    .where('ci_instance', 'is not', null)
    .where('ci_instance', '<>', holder)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The latest `limit` runs of a queue that succeeded or failed (by creation, newest first). */
export async function listFinishedRuns(db: Kysely<Database>, queueId: string, limit: number): Promise<TestRun[]> {
  const rows = await db
    .selectFrom('test_runs')
    .select('data')
    .where('queue_id', '=', queueId)
    .where('status', 'in', ['succeeded', 'failed'])
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(runOf);
}
