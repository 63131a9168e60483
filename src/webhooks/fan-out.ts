/**
 * Storing a queue event and fanning it out: in one transaction the event is stored in queue_events
 * and one message is queued per enabled subscription of the queue's organization that wants its
 * type. An event stored before (the effect ran again after a crash) is not fanned out again.
 */
import type { Kysely } from 'kysely';
import type { QueueEventPayload } from '../engine/types.js';
import type { Database } from '../store/database.js';
import { findEntry } from '../store/entries.js';
import { insertQueueEvent } from '../store/queue-events.js';
import { enabledSubscriptionsOfOrg, insertMessages } from '../store/webhooks.js';
import { queueNotifications } from '../notify/fan-out.js';
import { eventBody, isBatchEvent, isQueueEvent } from './events.js';
import { newMessageId } from './signing.js';

/** Messages of one key are delivered in order: each PR's events, and a queue's batch events. */
export function orderKey(queueId: string, event: QueueEventPayload): string {
  if (isQueueEvent(event.type)) return `${queueId}:queue`;
  return isBatchEvent(event.type) ? `${queueId}:batch` : `${queueId}:pr:${event.prNumbers[0]}`;
}

/** Whether a subscription wants an event type: the types of its filter, or (none) Trunk's types. */
export const wants = (events: string | null, type: string): boolean =>
  events === null ? !isQueueEvent(type) : (JSON.parse(events) as string[]).includes(type);

/** How many messages an event queued: webhook deliveries and chat notifications. */
export interface QueuedMessages {
  webhooks: number;
  notifications: number;
}

/**
 * Stores the event and queues its webhook deliveries and chat notifications (notify/fan-out.ts);
 * `publicUrl`: the server's public address, for the notifications' dashboard links.
 */
export async function recordQueueEvent(
  db: Kysely<Database>,
  queueId: string,
  key: string,
  event: QueueEventPayload,
  at: number,
  publicUrl: string | null = null,
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
        'repos.pr_url_template',
        'queues.target_branch',
      ])
      .where('queues.id', '=', queueId)
      .executeTakeFirst();
    if (!where) return none;
    const notifications = await queueNotifications(
      trx,
      {
        queueId,
        orgId: where.org_id,
        repoId: where.repo_id,
        host: where.host,
        owner: where.owner,
        name: where.name,
        targetBranch: where.target_branch,
        prUrlTemplate: where.pr_url_template,
      },
      eventId,
      event,
      at,
      publicUrl,
    );
    const subscriptions = (await enabledSubscriptionsOfOrg(trx, where.org_id)).filter((s) =>
      wants(s.events, event.type),
    );
    if (subscriptions.length === 0) return { webhooks: 0, notifications };
    const author =
      isBatchEvent(event.type) || isQueueEvent(event.type)
        ? ''
        : ((await findEntry(trx, queueId, event.prNumbers[0]!))?.author ?? '');
    const body = JSON.stringify(
      eventBody(event, {
        repo: { host: where.host, owner: where.owner, name: where.name },
        targetBranch: where.target_branch,
        author,
      }),
    );
    await insertMessages(
      trx,
      subscriptions.map((s) => ({
        message_id: newMessageId(),
        subscription_id: s.id,
        queue_id: queueId,
        event_id: eventId,
        event_type: event.type,
        order_key: orderKey(queueId, event),
        body,
        status: 'pending' as const,
        attempts: 0,
        manual: 0,
        next_attempt_at: at,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: at,
        updated_at: at,
      })),
    );
    return { webhooks: subscriptions.length, notifications };
  });
}
