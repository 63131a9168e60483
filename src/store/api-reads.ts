/** Reads of the v2 API beyond v1's: runs of a queue by page, a pull request's entries across queues. */
import { sql, type Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database, QueueRow, RepoRow, TestRunRow } from './database.js';
import { entryOf } from './entries.js';
import { prepare } from './prepared.js';
import { QUEUE_AS_Q, splitQueueRow } from './queues.js';

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

const latestEntry = prepare((db, p: { repoId: string; prNumber: number }) =>
  db
    .selectFrom('repos')
    .leftJoin('queues', 'queues.repo_id', 'repos.id')
    .leftJoin('entries', (join) =>
      join.onRef('entries.queue_id', '=', 'queues.id').on('entries.pr_number', '=', p.prNumber),
    )
    .select([
      'repos.org_id',
      'queues.id as queue_id',
      'queues.target_branch',
      'queues.config',
      'queues.target_sha',
      'queues.version',
      'entries.data',
    ])
    .where('repos.id', '=', p.repoId)
    // One row per queue of the repository: the most recently submitted entry first.
    .orderBy(sql`entries.data is null`)
    .orderBy('entries.submitted_at', 'desc')
    // A limit in the SQL text, not a parameter: SQLite then keeps only the best row while it sorts.
    .limit(sql<number>`1`),
);

/**
 * A pull request's most recently submitted entry in its repository's queues, with the queue's id,
 * branch, config (JSON) and what a write to it needs of its row, and the repository's org, in one query; undefined when the repository is
 * not (any more).
 */
export async function findLatestEntryOfPr(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
): Promise<
  | {
      orgId: string;
      latest?: {
        queueId: string;
        targetBranch: string;
        config: string;
        entry: Entry;
        queue: { id: string; target_branch: string; target_sha: string | null; version: number };
      };
    }
  | undefined
> {
  const [row] = await latestEntry(db, { repoId, prNumber });
  if (!row) return undefined;
  return {
    orgId: row.org_id,
    ...(row.data !== null
      ? {
          latest: {
            queueId: row.queue_id!,
            targetBranch: row.target_branch!,
            config: row.config!,
            entry: entryOf({ data: row.data }),
            queue: {
              id: row.queue_id!,
              target_branch: row.target_branch!,
              target_sha: row.target_sha,
              version: Number(row.version),
            },
          },
        }
      : {}),
  };
}

const queueByShortId = prepare((db, p: { shortId: string }) =>
  db
    .selectFrom('queue_short_ids')
    .innerJoin('queues', 'queues.id', 'queue_short_ids.queue_id')
    .innerJoin('repos', 'repos.id', 'queues.repo_id')
    .selectAll('repos')
    .select(QUEUE_AS_Q)
    .where('queue_short_ids.short_id', '=', p.shortId),
);

/** A queue by its v2 short id, with its repository, in one query. */
export async function findQueueByShortId(
  db: Kysely<Database>,
  shortId: string,
): Promise<{ repo: RepoRow; queue: QueueRow } | undefined> {
  const [row] = await queueByShortId(db, { shortId });
  if (!row) return undefined;
  const { queue, rest: repo } = splitQueueRow(row, row.id);
  return queue && { repo, queue };
}
