/**
 * Test runs whose CI retry waits for the forge's CI runs (GitHub: workflow runs) to complete before
 * their failed jobs are re-run. The column keeps its first name, `workflow_runs`.
 */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

export interface WaitingRerun {
  runId: string;
  sha: string;
  branch: string;
  /** The forge's ids of the CI runs still running. */
  ciRuns: string[];
}

/** Records what the run's retry waits for; nothing left to wait for removes the record. */
export async function setWaitingRerun(db: Kysely<Database>, rerun: WaitingRerun, at: number): Promise<void> {
  if (rerun.ciRuns.length === 0) {
    await db.deleteFrom('ci_reruns_waiting').where('run_id', '=', rerun.runId).execute();
    return;
  }
  const row = {
    run_id: rerun.runId,
    sha: rerun.sha,
    branch: rerun.branch,
    workflow_runs: JSON.stringify(rerun.ciRuns),
    created_at: at,
  };
  await db
    .insertInto('ci_reruns_waiting')
    .values(row)
    .onConflict((oc) => oc.column('run_id').doUpdateSet({ workflow_runs: row.workflow_runs }))
    .execute();
}

export async function findWaitingRerun(db: Kysely<Database>, runId: string): Promise<WaitingRerun | null> {
  const row = await db.selectFrom('ci_reruns_waiting').selectAll().where('run_id', '=', runId).executeTakeFirst();
  return row
    ? { runId: row.run_id, sha: row.sha, branch: row.branch, ciRuns: JSON.parse(row.workflow_runs) as string[] }
    : null;
}
