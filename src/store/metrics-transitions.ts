/** Transitions as the metrics scrape reads them. One SQL operation per function. */
import { sql, type Kysely } from 'kysely';
import type { Database } from './database.js';

export interface MetricsTransition {
  queueId: string;
  prNumber: number;
  from: string | null;
  to: string;
  reason: string;
  at: number;
  /** Whether the transition's test run (if any) is a bisection run. */
  bisection: boolean;
}

/**
 * Every transition of every (queue, PR) that had a transition after `after`, ordered by queue,
 * PR and time: a window's events together with the history needed to measure them (a PR admitted
 * two hours ago and merged now has its admission in the result).
 *
 * The run's queue type lives in the run's JSON (`data`), which upsertRuns writes with
 * JSON.stringify: the top-level key appears as exactly `"queueType":"bisection"`, and no other field
 * can hold that text unescaped (string values escape their quotes), so a LIKE reads it on SQLite and
 * PostgreSQL alike without parsing every run.
 */
export async function listTransitionsOfRecentPrs(
  db: Kysely<Database>,
  queueIds: readonly string[],
  after: number,
): Promise<MetricsTransition[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .selectFrom('transitions as t')
    .innerJoin(
      (eb) =>
        eb
          .selectFrom('transitions')
          .select(['queue_id', 'pr_number'])
          .distinct()
          .where('queue_id', 'in', [...queueIds])
          .where('at', '>', after)
          .as('recent'),
      (join) => join.onRef('recent.queue_id', '=', 't.queue_id').onRef('recent.pr_number', '=', 't.pr_number'),
    )
    .leftJoin('test_runs as r', 'r.id', 't.run_id')
    .select(['t.queue_id', 't.pr_number', 't.from_state', 't.to_state', 't.reason', 't.at'])
    .select(sql<number>`case when r.data like '%"queueType":"bisection"%' then 1 else 0 end`.as('bisection'))
    .orderBy('t.queue_id')
    .orderBy('t.pr_number')
    .orderBy('t.at')
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({
    queueId: r.queue_id,
    prNumber: Number(r.pr_number),
    from: r.from_state,
    to: r.to_state,
    reason: r.reason,
    at: Number(r.at),
    bisection: Number(r.bisection) === 1,
  }));
}
