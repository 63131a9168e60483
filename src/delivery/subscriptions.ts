/**
 * What delivery keeps on a subscription (`tables.subscriptions`): its run of failures, and whether it
 * is still sent to. The rest of a subscription (a webhook's secret, a channel's kind) is its owner's.
 */
import type { Kysely, Updateable } from 'kysely';
import type { Database } from '../store/database.js';
import type { DeliverySubscriptionColumns, OutboxTables } from './tables.js';

/** Starts the subscription's run of failures at `at` unless one is under way; returns its start. */
export async function markFailing(
  db: Kysely<Database>,
  tables: OutboxTables,
  id: string,
  at: number,
): Promise<number | null> {
  await db
    .updateTable(tables.subscriptions)
    .set({ failing_since: at })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db.selectFrom(tables.subscriptions).select('failing_since').where('id', '=', id).executeTakeFirst();
  return row?.failing_since ?? null;
}

/** Records how delivery to the subscription stands: a run of failures ended, or it was disabled. */
export async function setDeliveryState(
  db: Kysely<Database>,
  tables: OutboxTables,
  id: string,
  patch: Updateable<Omit<DeliverySubscriptionColumns, 'id' | 'url'>>,
): Promise<void> {
  await db.updateTable(tables.subscriptions).set(patch).where('id', '=', id).execute();
}
