/**
 * Fanning a queue event out to webhook subscriptions: one message per enabled subscription of the
 * queue's organization that wants its type, queued in the transaction that stores the event
 * (app/executor/queue-events.ts).
 */
import type { Kysely } from 'kysely';
import type { QueueEventPayload } from '../engine/types.js';
import type { RepoSite } from '../forge/links.js';
import type { Database } from '../store/database.js';
import { findEntry } from '../store/entries.js';
import { queueMessages } from '../delivery/messages.js';
import { enabledSubscriptionsOfOrg } from '../store/webhooks.js';
import { EVENT_TYPES, eventBody, isBatchEvent, isQueueEvent, isTestRunEvent } from './events.js';
import { WEBHOOK_TABLES } from './outbox.js';

/** Messages of one key are delivered in order: each PR's events, a queue's batch events, its test run events. */
export function orderKey(queueId: string, event: QueueEventPayload): string {
  if (isQueueEvent(event.type)) return `${queueId}:queue`;
  if (isTestRunEvent(event.type)) return `${queueId}:test_run`;
  return isBatchEvent(event.type) ? `${queueId}:batch` : `${queueId}:pr:${event.prNumbers[0]}`;
}

/** Whether a subscription wants an event type: the types of its filter, or (none) Trunk's types. */
export const wants = (events: string | null, type: string): boolean =>
  events === null
    ? EVENT_TYPES.includes(type as QueueEventPayload['type'])
    : (JSON.parse(events) as string[]).includes(type);

/** The queue an event happened in, as the fan-out reads it: its repository's site and its branch. */
export interface EventPlace extends RepoSite {
  orgId: string;
  targetBranch: string;
}

/** Queues the event's webhook deliveries (in the transaction that stored it); returns how many. */
export async function queueWebhookMessages(
  trx: Kysely<Database>,
  queueId: string,
  eventId: number,
  event: QueueEventPayload,
  at: number,
  where: EventPlace,
): Promise<number> {
  const subscriptions = (await enabledSubscriptionsOfOrg(trx, where.orgId)).filter((s) => wants(s.events, event.type));
  if (subscriptions.length === 0) return 0;
  const author =
    isBatchEvent(event.type) || isQueueEvent(event.type) || isTestRunEvent(event.type)
      ? ''
      : ((await findEntry(trx, queueId, event.prNumbers[0]!))?.author ?? '');
  const body = JSON.stringify(
    eventBody(event, {
      repo: where,
      targetBranch: where.targetBranch,
      author,
    }),
  );
  await queueMessages(
    trx,
    WEBHOOK_TABLES,
    subscriptions.map((s) => ({
      subscription_id: s.id,
      queue_id: queueId,
      event_id: eventId,
      event_type: event.type,
      order_key: orderKey(queueId, event),
      body,
    })),
    at,
  );
  return subscriptions.length;
}
