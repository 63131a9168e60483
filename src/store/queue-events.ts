/** Queue events (webhook-shaped) recorded for the webhook facility; idempotent by (queue, key). */
import type { Kysely } from 'kysely';
import type { QueueEventPayload } from '../engine/types.js';
import type { Database } from './database.js';

export async function insertQueueEvent(
  db: Kysely<Database>, queueId: string, key: string, event: QueueEventPayload, at: number,
): Promise<void> {
  await db.insertInto('queue_events')
    .values({ queue_id: queueId, key, type: event.type, payload: JSON.stringify(event), created_at: at })
    .onConflict((oc) => oc.columns(['queue_id', 'key']).doNothing())
    .execute();
}

export async function listQueueEvents(db: Kysely<Database>, queueId: string): Promise<QueueEventPayload[]> {
  const rows = await db.selectFrom('queue_events').select('payload')
    .where('queue_id', '=', queueId).orderBy('id').execute();
  return rows.map((r) => JSON.parse(r.payload) as QueueEventPayload);
}
