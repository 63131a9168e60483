/** Deleting finished work records past their retention (app/retention.ts). One SQL operation per table. */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

export interface Pruned {
  effects: number;
  webhookMessages: number;
  queueEvents: number;
}

/**
 * Deletes what finished before `before`: effects done or failed, webhook messages delivered or given up
 * (their attempts go with them), and queue events (each was fanned out when it was stored).
 */
export async function pruneFinished(db: Kysely<Database>, before: number): Promise<Pruned> {
  const effects = await db.deleteFrom('effects')
    .where('status', 'in', ['done', 'failed']).where('updated_at', '<', before).executeTakeFirst();
  const webhookMessages = await db.deleteFrom('webhook_messages')
    .where('status', 'in', ['delivered', 'failed']).where('updated_at', '<', before).executeTakeFirst();
  const queueEvents = await db.deleteFrom('queue_events').where('created_at', '<', before).executeTakeFirst();
  return {
    effects: Number(effects.numDeletedRows), webhookMessages: Number(webhookMessages.numDeletedRows), queueEvents: Number(queueEvents.numDeletedRows),
  };
}
