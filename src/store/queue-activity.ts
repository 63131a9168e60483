/** What the dashboard reads beyond the v1 endpoints' queries. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database } from './database.js';
import { entryOf } from './entries.js';

/** Per queue and state: how many transitions into one of `states` happened after `after`. */
export async function countTransitionsInto(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
  after: number,
): Promise<{ queueId: string; state: string; count: number }[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .selectFrom('transitions')
    .select(['queue_id', 'to_state'])
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('queue_id', 'in', [...queueIds])
    .where('at', '>', after)
    .where('to_state', 'in', [...states])
    .groupBy(['queue_id', 'to_state'])
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, state: r.to_state, count: Number(r.n) }));
}

/** The queue's entries in one of `states` (the terminal ones), most recently changed first. */
export async function listLatestEntriesInStates(
  db: Kysely<Database>,
  queueId: string,
  states: readonly string[],
  limit: number,
): Promise<Entry[]> {
  const rows = await db
    .selectFrom('entries')
    .select('data')
    .where('queue_id', '=', queueId)
    .where('state', 'in', [...states])
    .orderBy('state_changed_at', 'desc')
    .orderBy('pr_number', 'desc')
    .limit(limit)
    .execute();
  return rows.map(entryOf);
}
