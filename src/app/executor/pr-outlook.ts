/**
 * Where each PR of a queue stands, what it waits on and when it should merge (engine/eta.ts), from
 * the queue's snapshot and the statistics of its recent finished test runs in the store.
 */
import type { Kysely } from 'kysely';
import {
  laneText,
  queueOutlook,
  queueStatistics,
  STATISTICS_RUNS,
  type PrOutlook,
  type QueueSnapshot,
} from '../../engine/index.js';
import type { Database } from '../../store/database.js';
import { listFinishedRuns } from '../../store/test-runs.js';

/**
 * How long the outlook worked out for a snapshot is answered again. A snapshot object stands for one
 * committed state of its queue (the executor hands out the same object until the queue changes), and
 * estimates move by the minute, so reads in between share one computation over the whole queue.
 */
export const OUTLOOK_FRESH_MS = 5_000;

const computed = new WeakMap<QueueSnapshot, { at: number; outlook: Map<number, PrOutlook> }>();

/** Outlook of every non-terminal entry of the queue, by PR number. */
export async function outlookOf(
  db: Kysely<Database>,
  queueId: string,
  snapshot: QueueSnapshot,
  now: number,
): Promise<Map<number, PrOutlook>> {
  if (snapshot.entries.length === 0) return new Map();
  const known = computed.get(snapshot);
  if (known && now >= known.at && now - known.at < OUTLOOK_FRESH_MS) return known.outlook;
  // Bisection runs are stored beside main ones; twice the window leaves room for them.
  const stats = queueStatistics(await listFinishedRuns(db, queueId, 2 * STATISTICS_RUNS));
  const outlook = queueOutlook(snapshot, stats, now);
  if (snapshot.config.mode === 'parallel')
    for (const e of snapshot.entries) {
      const o = outlook.get(e.prNumber);
      if (o && e.impactedTargets !== null)
        outlook.set(e.prNumber, { ...o, lane: laneText(e.impactedTargets, e.impactedTargetsWhy) });
    }
  computed.set(snapshot, { at: now, outlook });
  return outlook;
}
