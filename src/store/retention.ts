/** Deleting finished work records past their retention (app/cluster/retention.ts). One SQL operation per table. */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

export interface Pruned {
  effects: number;
  webhookMessages: number;
  queueEvents: number;
  githubDeliveries: number;
}

/**
 * Deletes what finished before `cutoffs.finished`: effects done or failed, webhook messages delivered
 * or given up (their attempts go with them), and queue events (each was fanned out when it was
 * stored); and the GitHub delivery ids received before `cutoffs.githubDeliveries`.
 */
export async function pruneFinished(
  db: Kysely<Database>,
  cutoffs: { finished: number; githubDeliveries: number },
): Promise<Pruned> {
  const effects = await db
    .deleteFrom('effects')
    .where('status', 'in', ['done', 'failed'])
    .where('updated_at', '<', cutoffs.finished)
    .executeTakeFirst();
  const webhookMessages = await db
    .deleteFrom('webhook_messages')
    .where('status', 'in', ['delivered', 'failed'])
    .where('updated_at', '<', cutoffs.finished)
    .executeTakeFirst();
  const queueEvents = await db.deleteFrom('queue_events').where('created_at', '<', cutoffs.finished).executeTakeFirst();
  const githubDeliveries = await db
    .deleteFrom('github_deliveries')
    .where('received_at', '<', cutoffs.githubDeliveries)
    .executeTakeFirst();
  return {
    effects: Number(effects.numDeletedRows),
    webhookMessages: Number(webhookMessages.numDeletedRows),
    queueEvents: Number(queueEvents.numDeletedRows),
    githubDeliveries: Number(githubDeliveries.numDeletedRows),
  };
}
