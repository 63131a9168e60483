/**
 * The webhooks' delivery outbox (src/delivery/): webhook_subscriptions, webhook_messages and
 * webhook_attempts. Each message is POSTed with Standard Webhooks signature headers (and the same
 * under svix-*); an endpoint whose attempts have all failed for 5 days is disabled.
 */
import type { Outbox } from '../delivery/worker.js';
import { attemptPost } from '../delivery/http-post.js';
import { signedHeaders } from '../delivery/signing.js';
import type { OutboxTables } from '../delivery/tables.js';
import { DAY_MS } from '../lib/time.js';
import type { WebhookSubscriptionRow } from '../store/database.js';
import { findSubscription } from '../store/webhooks.js';

export const WEBHOOK_TABLES: OutboxTables = {
  subscriptions: 'webhook_subscriptions',
  messages: 'webhook_messages',
  attempts: 'webhook_attempts',
};

export const webhookOutbox: Outbox<WebhookSubscriptionRow> = {
  tables: WEBHOOK_TABLES,
  what: 'webhook',
  disableAfterMs: 5 * DAY_MS,
  findSubscription,
  send: (subscription, message, at, { policy, timeoutMs }) =>
    attemptPost(policy, subscription.url, {
      headers: signedHeaders(subscription.secret, message.message_id, Math.floor(at / 1000), message.body),
      body: message.body,
      timeoutMs,
    }),
};
