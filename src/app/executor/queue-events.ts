/**
 * Storing a queue event and fanning it out: in one transaction the event is stored in queue_events,
 * and its webhook deliveries (webhooks/fan-out.ts) and chat notifications (notify/fan-out.ts) are
 * queued. An event stored before (the effect ran again after a crash) is not fanned out again.
 */
import type { Kysely } from 'kysely';
import type { QueueEventPayload } from '../../engine/types.js';
import { type NoticeContext, queueNotifications } from '../../notify/fan-out.js';
import type { Database } from '../../store/database.js';
import { insertQueueEvent } from '../../store/queue-events.js';
import { queueWebhookMessages } from '../../webhooks/fan-out.js';

/** How many messages an event queued: webhook deliveries and chat notifications. */
export interface QueuedMessages {
  webhooks: number;
  notifications: number;
}

export async function recordQueueEvent(
  db: Kysely<Database>,
  queueId: string,
  key: string,
  event: QueueEventPayload,
  at: number,
  notices: NoticeContext,
): Promise<QueuedMessages> {
  return db.transaction().execute(async (trx) => {
    const none = { webhooks: 0, notifications: 0 };
    const eventId = await insertQueueEvent(trx, queueId, key, event, at);
    if (eventId === null) return none;
    const where = await trx
      .selectFrom('queues')
      .innerJoin('repos', 'repos.id', 'queues.repo_id')
      .select([
        'repos.id as repo_id',
        'repos.org_id',
        'repos.host',
        'repos.owner',
        'repos.name',
        'repos.forge',
        'repos.pr_url_template',
        'queues.target_branch',
      ])
      .where('queues.id', '=', queueId)
      .executeTakeFirst();
    if (!where) return none;
    const place = {
      orgId: where.org_id,
      forge: where.forge,
      host: where.host,
      owner: where.owner,
      name: where.name,
      pr_url_template: where.pr_url_template,
      targetBranch: where.target_branch,
    };
    return {
      webhooks: await queueWebhookMessages(trx, queueId, eventId, event, at, place),
      notifications: await queueNotifications(
        trx,
        { ...place, queueId, repoId: where.repo_id },
        eventId,
        event,
        at,
        notices,
      ),
    };
  });
}
