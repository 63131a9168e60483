/** Try builds (app/try-builds.ts): one row per try of a PR, the latest of a PR being what is shown. */
import type { Kysely } from 'kysely';
import type { Database, TryBuildRow } from './database.js';

/** The states of a try that is not over. */
export const OPEN_TRY_STATES = ['queued', 'building', 'testing'] as const;

export async function insertTryBuild(db: Kysely<Database>, row: TryBuildRow): Promise<void> {
  await db.insertInto('try_builds').values(row).execute();
}

export async function findTryBuild(db: Kysely<Database>, id: string): Promise<TryBuildRow | undefined> {
  return db.selectFrom('try_builds').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The PR's latest try in the queue. */
export async function latestTryBuild(
  db: Kysely<Database>,
  queueId: string,
  prNumber: number,
): Promise<TryBuildRow | undefined> {
  return db
    .selectFrom('try_builds')
    .selectAll()
    .where('queue_id', '=', queueId)
    .where('pr_number', '=', prNumber)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

/** The tries not over, oldest first (of one queue, or of every queue). */
export async function listOpenTryBuilds(db: Kysely<Database>, queueId?: string): Promise<TryBuildRow[]> {
  let q = db.selectFrom('try_builds').selectAll().where('state', 'in', OPEN_TRY_STATES);
  if (queueId !== undefined) q = q.where('queue_id', '=', queueId);
  return q.orderBy('created_at').orderBy('id').execute();
}

/**
 * Moves a try on, only from one of the states in `from` (a try cancelled meanwhile stays cancelled);
 * true when it moved.
 */
export async function updateTryBuild(
  db: Kysely<Database>,
  id: string,
  from: readonly string[],
  set: Partial<Pick<TryBuildRow, 'state' | 'base_sha' | 'pr_numbers' | 'test_sha' | 'detail' | 'updated_at'>>,
): Promise<boolean> {
  const r = await db
    .updateTable('try_builds')
    .set(set)
    .where('id', '=', id)
    .where('state', 'in', from)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}
