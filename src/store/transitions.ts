/** Entry state transitions, one row each, kept for metrics. One SQL operation per function. */
import type { Kysely, Transaction } from 'kysely';
import type { Database, NewTransition, TransitionRow } from './database.js';
import { prepareRows } from './prepared.js';

type TransitionWrite = Omit<TransitionRow, 'id'>;

const transitionsInsert = prepareRows((db, rows: TransitionWrite[]) => db.insertInto('transitions').values(rows.map((r) => ({
  queue_id: r.queue_id, pr_number: r.pr_number, from_state: r.from_state, to_state: r.to_state, reason: r.reason,
  run_id: r.run_id, at: r.at,
}))));

export async function insertTransitions(trx: Transaction<Database>, rows: NewTransition[]): Promise<void> {
  if (rows.length === 0) return;
  await transitionsInsert(trx, rows.map((r) => ({ ...r, from_state: r.from_state ?? null, run_id: r.run_id ?? null })));
}

/**
 * Every transition of every (queue, PR) that had a transition at or after `since`, in the given
 * queues, oldest first: a window's events together with the history needed to measure them.
 */
export async function listTransitionsOfRecentPrs(
  db: Kysely<Database>, queueIds: string[], since: number,
): Promise<TransitionRow[]> {
  if (queueIds.length === 0) return [];
  const rows = await db.selectFrom('transitions as t')
    .innerJoin(
      (eb) => eb.selectFrom('transitions').select(['queue_id', 'pr_number']).distinct()
        .where('queue_id', 'in', queueIds).where('at', '>=', since).as('recent'),
      (join) => join.onRef('recent.queue_id', '=', 't.queue_id').onRef('recent.pr_number', '=', 't.pr_number'),
    )
    .selectAll('t')
    .orderBy('t.at').orderBy('t.id')
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), pr_number: Number(r.pr_number) }));
}
