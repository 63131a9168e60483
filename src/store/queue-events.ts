/** Queue events (webhook-shaped) recorded for the webhook facility; idempotent by (queue, key). */
import type { Kysely } from 'kysely';
import type { QueueEventPayload } from '../engine/types.js';
import type { Database } from './database.js';

/** Stores an event; returns its id, or null when an event with this key was stored before. */
export async function insertQueueEvent(
  db: Kysely<Database>,
  queueId: string,
  key: string,
  event: QueueEventPayload,
  at: number,
): Promise<number | null> {
  const row = await db
    .insertInto('queue_events')
    .values({ queue_id: queueId, key, type: event.type, payload: JSON.stringify(event), created_at: at })
    .onConflict((oc) => oc.columns(['queue_id', 'key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? Number(row.id) : null;
}

export async function listQueueEvents(db: Kysely<Database>, queueId: string): Promise<QueueEventPayload[]> {
  const rows = await db
    .selectFrom('queue_events')
    .select('payload')
    .where('queue_id', '=', queueId)
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as QueueEventPayload);
}
