/**
 * The chat notifications' delivery outbox (src/delivery/): notify_subscriptions (the channels),
 * notify_messages and notify_attempts. Each message goes to its channel its own way (send.ts), on the
 * same retry schedule as webhooks, with the same leases and takeover, messages of one queue in order;
 * a channel failing continuously for 3 days is disabled.
 */
import type { Outbox } from '../delivery/worker.js';
import type { OutboxTables } from '../delivery/tables.js';
import { DAY_MS } from '../lib/time.js';
import type { NotifySubscriptionRow } from '../store/database.js';
import { findChannel } from '../store/notifications.js';
import { sendToChannel } from './send.js';

export const NOTIFY_TABLES: OutboxTables = {
  subscriptions: 'notify_subscriptions',
  messages: 'notify_messages',
  attempts: 'notify_attempts',
};

export const notificationOutbox: Outbox<NotifySubscriptionRow> = {
  tables: NOTIFY_TABLES,
  what: 'notification',
  disableAfterMs: 3 * DAY_MS,
  findSubscription: findChannel,
  send: (channel, message, _at, { policy, timeoutMs }) => sendToChannel(policy, channel, message.body, timeoutMs),
};
