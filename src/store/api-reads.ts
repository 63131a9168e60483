/** Reads of the v2 API beyond v1's: runs of a queue by page, a pull request's entries across queues. */
import type { Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database, RepoRow, TestRunRow } from './database.js';
import { entryOf } from './entries.js';
import { prepare } from './prepared.js';

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

const prWithRepo = prepare((db, p: { id: string }) =>
  db
    .selectFrom('pull_request_ids')
    .innerJoin('repos', 'repos.id', 'pull_request_ids.repo_id')
    .selectAll('repos')
    .select(['pull_request_ids.pr_number as pr_number', 'pull_request_ids.created_at as pr_created_at'])
    .where('pull_request_ids.id', '=', p.id),
);

/** A pull request by its v2 id, with its repository: one query. */
export async function findPullRequestWithRepo(
  db: Kysely<Database>,
  id: string,
): Promise<{ repo: RepoRow; prNumber: number; createdAt: number } | undefined> {
  const [row] = await prWithRepo(db, { id });
  if (!row) return undefined;
  const { pr_number, pr_created_at, ...repo } = row;
  return { repo, prNumber: Number(pr_number), createdAt: Number(pr_created_at) };
}

const latestEntry = prepare((db, p: { repoId: string; prNumber: number }) =>
  db
    .selectFrom('entries')
    .innerJoin('queues', 'queues.id', 'entries.queue_id')
    .select(['entries.queue_id', 'entries.data', 'queues.target_branch', 'queues.config'])
    .where('queues.repo_id', '=', p.repoId)
    .where('entries.pr_number', '=', p.prNumber)
    .orderBy('entries.submitted_at', 'desc')
    .limit(1),
);

/** A pull request's most recently submitted entry in its repository's queues, with the queue's config (JSON). */
export async function findLatestEntryOfPr(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
): Promise<{ queueId: string; targetBranch: string; config: string; entry: Entry } | undefined> {
  const [row] = await latestEntry(db, { repoId, prNumber });
  return row && { queueId: row.queue_id, targetBranch: row.target_branch, config: row.config, entry: entryOf(row) };
}
