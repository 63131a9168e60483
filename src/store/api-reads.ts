/** Reads of the v2 API beyond v1's: runs of a queue by page, a pull request's entries across queues. */
import type { Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database, TestRunRow } from './database.js';
import { entryOf } from './entries.js';

export interface RunPageQuery {
  queueIds: string[];
  statuses?: readonly string[];
  /** Only runs created strictly after this time (ms). */
  createdAfter?: number;
  /** Continue strictly after this (createdAt, id) position, newest first. */
  after?: { createdAt: number; id: string };
  limit: number;
}

/** A page of test runs, newest first (ties: highest id first). */
export async function listRunsPage(db: Kysely<Database>, q: RunPageQuery): Promise<TestRunRow[]> {
  if (q.queueIds.length === 0) return [];
  return db
    .selectFrom('test_runs')
    .selectAll()
    .where('queue_id', 'in', q.queueIds)
    .$if(q.statuses !== undefined, (b) => b.where('status', 'in', [...q.statuses!]))
    .$if(q.createdAfter !== undefined, (b) => b.where('created_at', '>', q.createdAfter!))
    .$if(q.after !== undefined, (b) =>
      b.where((eb) =>
        eb.or([
          eb('created_at', '<', q.after!.createdAt),
          eb.and([eb('created_at', '=', q.after!.createdAt), eb('id', '<', q.after!.id)]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(q.limit)
    .execute();
}

/** A pull request's entries in the queues of its repository, most recently submitted first. */
export async function listEntriesOfPr(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
): Promise<{ queueId: string; targetBranch: string; entry: Entry }[]> {
  const rows = await db
    .selectFrom('entries')
    .innerJoin('queues', 'queues.id', 'entries.queue_id')
    .select(['entries.queue_id', 'entries.data', 'queues.target_branch'])
    .where('queues.repo_id', '=', repoId)
    .where('entries.pr_number', '=', prNumber)
    .orderBy('entries.submitted_at', 'desc')
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, targetBranch: r.target_branch, entry: entryOf(r) }));
}
