/**
 * The events a chat channel may choose (docs/notifications.md), and which queue event each one is:
 * a PR left the queue (merged, failed, cancelled) or is failing, the queue changed state, or a required
 * status was quarantined or its quarantine lifted.
 */
import type { QueueEventPayload } from '../engine/types.js';
import { ServiceError } from '../lib/errors.js';

/** The kinds of channel: Slack incoming webhook, Teams workflow webhook, chat webhook taking `{ text }`. */
export const NOTIFY_KINDS = ['slack', 'teams', 'chat'] as const;

export const NOTIFY_EVENTS = [
  'merged',
  'failed',
  'cancelled',
  'pending_failure',
  'queue_paused',
  'queue_resumed',
  'queue_frozen',
  'queue_unfrozen',
  'status_quarantined',
  'status_quarantine_lifted',
] as const;

export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** What a channel gets unless it chooses: a PR failed or was cancelled, and the queue's state changes. */
export const DEFAULT_NOTIFY_EVENTS: readonly NotifyEvent[] = [
  'failed',
  'cancelled',
  'queue_paused',
  'queue_resumed',
  'queue_frozen',
  'queue_unfrozen',
  'status_quarantined',
  'status_quarantine_lifted',
];

const EVENT_OF: Partial<Record<QueueEventPayload['type'], NotifyEvent>> = {
  'pull_request.merged': 'merged',
  'pull_request.failed': 'failed',
  'pull_request.canceled': 'cancelled',
  'pull_request.pending_failure': 'pending_failure',
  'queue.paused': 'queue_paused',
  'queue.resumed': 'queue_resumed',
  'queue.frozen': 'queue_frozen',
  'queue.unfrozen': 'queue_unfrozen',
  'queue.status_quarantined': 'status_quarantined',
  'queue.status_quarantine_lifted': 'status_quarantine_lifted',
};

/** The notification event of a queue event; null for those never announced (a batch's events: each PR's are). */
export const notifyEventOf = (type: QueueEventPayload['type']): NotifyEvent | null => EVENT_OF[type] ?? null;

/** The events as given (a list, or a comma-separated string), or the default; throws naming an unknown one. */
export function parseNotifyEvents(events: readonly string[] | string | undefined | null): NotifyEvent[] {
  if (events === undefined || events === null) return [...DEFAULT_NOTIFY_EVENTS];
  const given = typeof events === 'string' ? events.split(',') : events;
  const list = [...new Set(given.map((e) => e.trim()).filter((e) => e !== ''))];
  if (list.length === 0) return [...DEFAULT_NOTIFY_EVENTS];
  for (const e of list) {
    if (!(NOTIFY_EVENTS as readonly string[]).includes(e)) {
      throw new ServiceError(
        'VALIDATION_FAILED',
        `unknown notification event ${JSON.stringify(e)}; known: ${NOTIFY_EVENTS.join(', ')}`,
      );
    }
  }
  return list as NotifyEvent[];
}
