/** Queue entries as the metrics scrape reads them. One SQL operation per function. */
import type { Kysely } from 'kysely';
import type { Entry } from '../engine/types.js';
import type { Database } from './database.js';
import { entryOf } from './entries.js';

/**
 * Entries of the queues in one of `states` (the non-terminal ones). Named states, not "not
 * terminal": the (queue, state) index then skips the history, which outgrows the queue by far.
 */
export async function listEntriesInStates(
  db: Kysely<Database>,
  queueIds: readonly string[],
  states: readonly string[],
): Promise<{ queueId: string; entry: Entry }[]> {
  if (queueIds.length === 0) return [];
  const rows = await db
    .selectFrom('entries')
    .select(['queue_id', 'data'])
    .where('queue_id', 'in', [...queueIds])
    .where('state', 'in', [...states])
    .execute();
  return rows.map((r) => ({ queueId: r.queue_id, entry: entryOf(r) }));
}
