/** Test runs as the metrics scrape reads them. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { TestRun } from '../engine/types.js';
import type { Database } from './database.js';
import { runOf } from './test-runs.js';

/** Runs of the queues created after `after`, or still in one of `activeStatuses` (any age). */
export async function listRunsOfWindow(
  db: Kysely<Database>,
  queueIds: readonly string[],
  after: number,
  activeStatuses: readonly string[],
): Promise<{ queueId: string; run: TestRun }[]> {
  if (queueIds.length === 0) return [];
  // A union, not an OR: each half is a range of one index (queue, created_at) and (queue, status).
  const rows = await db
    .selectFrom('test_runs')
    .select(['queue_id', 'data'])
    .where('queue_id', 'in', [...queueIds])
    .where('created_at', '>', after)
    .union(
      db
        .selectFrom('test_runs')
        .select(['queue_id', 'data'])
        .where('queue_id', 'in', [...queueIds])
        .where('status', 'in', [...activeStatuses]),
    )
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, run: runOf(r) }));
}
