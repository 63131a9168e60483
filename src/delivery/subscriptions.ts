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

/**
 * Ends the subscription's run of failures (a 2xx answer at `now`); whether one was under way, in which
 * case messages may be waiting for the endpoint to be back.
 */
export async function endFailingRun(
  db: Kysely<Database>,
  tables: OutboxTables,
  id: string,
  now: number,
): Promise<boolean> {
  const r = await db
    .updateTable(tables.subscriptions)
    .set({ failing_since: null, updated_at: now })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Records how delivery to the subscription stands: it was disabled. */
export async function setDeliveryState(
  db: Kysely<Database>,
  tables: OutboxTables,
  id: string,
  patch: Updateable<Omit<DeliverySubscriptionColumns, 'id' | 'url'>>,
): Promise<void> {
  await db.updateTable(tables.subscriptions).set(patch).where('id', '=', id).execute();
}
