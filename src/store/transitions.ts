/** Entry state transitions, one row each, kept for metrics. One SQL operation per function. */
import type { Transaction } from 'kysely';
import type { Database, NewTransition, TransitionRow } from './database.js';
import { prepareRows } from './prepared.js';

type TransitionWrite = Omit<TransitionRow, 'id'>;

const transitionsInsert = prepareRows((db, rows: TransitionWrite[]) =>
  db.insertInto('transitions').values(
    rows.map((r) => ({
      queue_id: r.queue_id,
      pr_number: r.pr_number,
      from_state: r.from_state,
      to_state: r.to_state,
      reason: r.reason,
      run_id: r.run_id,
      at: r.at,
    })),
  ),
);

export async function insertTransitions(trx: Transaction<Database>, rows: NewTransition[]): Promise<void> {
  if (rows.length === 0) return;
  await transitionsInsert(
    trx,
    rows.map((r) => ({ ...r, from_state: r.from_state ?? null, run_id: r.run_id ?? null })),
  );
}
