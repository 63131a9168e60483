/**
 * Where each PR of a queue stands, what it waits on and when it should merge (engine/eta.ts), from
 * the queue's snapshot and the statistics of its recent finished test runs in the store.
 */
import type { Kysely } from 'kysely';
import {
  queueOutlook,
  queueStatistics,
  STATISTICS_RUNS,
  type PrOutlook,
  type QueueSnapshot,
} from '../../engine/index.js';
import type { Database } from '../../store/database.js';
import { listFinishedRuns } from '../../store/test-runs.js';

/** Outlook of every non-terminal entry of the queue, by PR number. */
export async function outlookOf(
  db: Kysely<Database>,
  queueId: string,
  snapshot: QueueSnapshot,
  now: number,
): Promise<Map<number, PrOutlook>> {
  if (snapshot.entries.length === 0) return new Map();
  // Bisection runs are stored beside main ones; twice the window leaves room for them.
  const stats = queueStatistics(await listFinishedRuns(db, queueId, 2 * STATISTICS_RUNS));
  return queueOutlook(snapshot, stats, now);
}
