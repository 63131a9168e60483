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
import { eventBody, isBatchEvent, isTestRunEvent } from './events.js';
import { newMessageId } from './signing.js';

/** Messages of one key are delivered in order: each PR's events, a queue's batch events, its test run events. */
export function orderKey(queueId: string, event: QueueEventPayload): string {
  if (isTestRunEvent(event.type)) return `${queueId}:test_run`;
  return isBatchEvent(event.type) ? `${queueId}:batch` : `${queueId}:pr:${event.prNumbers[0]}`;
}

export const wants = (events: string | null, type: string): boolean =>
  events === null || (JSON.parse(events) as string[]).includes(type);

/** Stores the event and queues its deliveries; returns how many messages were queued. */
export async function recordQueueEvent(
  db: Kysely<Database>,
  queueId: string,
  key: string,
  event: QueueEventPayload,
  at: number,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const eventId = await insertQueueEvent(trx, queueId, key, event, at);
    if (eventId === null) return 0;
    const where = await trx
      .selectFrom('queues')
      .innerJoin('repos', 'repos.id', 'queues.repo_id')
      .select(['repos.org_id', 'repos.host', 'repos.owner', 'repos.name', 'queues.target_branch'])
      .where('queues.id', '=', queueId)
      .executeTakeFirst();
    if (!where) return 0;
    const subscriptions = (await enabledSubscriptionsOfOrg(trx, where.org_id)).filter((s) =>
      wants(s.events, event.type),
    );
    if (subscriptions.length === 0) return 0;
    const author =
      isBatchEvent(event.type) || isTestRunEvent(event.type)
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
    return subscriptions.length;
  });
}
