/** Deleting finished work records past their retention (app/cluster/retention.ts). One SQL operation per table. */
import type { Kysely } from 'kysely';
import type { Database } from './database.js';

export interface Pruned {
  effects: number;
  webhookMessages: number;
  notifyMessages: number;
  queueEvents: number;
  forgeDeliveries: number;
  earlyCiStatuses: number;
  ciRerunsWaiting: number;
  auditEvents: number;
}

/**
 * Deletes what finished before `cutoffs.finished`: effects done or failed, webhook and chat messages
 * delivered or given up (their attempts go with them), and queue events (each was fanned out when it was
 * stored), CI retries still waiting for workflows (their run is long over) and audit log entries; the forges' webhook delivery ids received before `cutoffs.forgeDeliveries`; and the CI statuses
 * held for unknown commits received before `cutoffs.earlyCiStatuses`.
 */
export async function pruneFinished(
  db: Kysely<Database>,
  cutoffs: { finished: number; forgeDeliveries: number; earlyCiStatuses: number },
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
  const notifyMessages = await db
    .deleteFrom('notify_messages')
    .where('status', 'in', ['delivered', 'failed'])
    .where('updated_at', '<', cutoffs.finished)
    .executeTakeFirst();
  const queueEvents = await db.deleteFrom('queue_events').where('created_at', '<', cutoffs.finished).executeTakeFirst();
  const forgeDeliveries = await db
    .deleteFrom('forge_deliveries')
    .where('received_at', '<', cutoffs.forgeDeliveries)
    .executeTakeFirst();
  const ciRerunsWaiting = await db
    .deleteFrom('ci_reruns_waiting')
    .where('created_at', '<', cutoffs.finished)
    .executeTakeFirst();
  const auditEvents = await db.deleteFrom('audit_events').where('at', '<', cutoffs.finished).executeTakeFirst();
  const earlyCiStatuses = await db
    .deleteFrom('early_ci_statuses')
    .where('received_at', '<', cutoffs.earlyCiStatuses)
    .executeTakeFirst();
  return {
    effects: Number(effects.numDeletedRows),
    webhookMessages: Number(webhookMessages.numDeletedRows),
    notifyMessages: Number(notifyMessages.numDeletedRows),
    queueEvents: Number(queueEvents.numDeletedRows),
    forgeDeliveries: Number(forgeDeliveries.numDeletedRows),
    earlyCiStatuses: Number(earlyCiStatuses.numDeletedRows),
    ciRerunsWaiting: Number(ciRerunsWaiting.numDeletedRows),
    auditEvents: Number(auditEvents.numDeletedRows),
  };
}
