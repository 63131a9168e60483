/**
 * Webhook subscriptions and their durable outbox (docs/webhooks.md):
 * - webhook_subscriptions: an organization's endpoints, with their signing secret (kept in clear: it
 *   signs every delivery), the event types they want (JSON string[], null = all), and whether they
 *   are enabled (an endpoint failing continuously for 5 days is disabled);
 * - webhook_messages: one row per (subscription, queue event): the exact body sent, its stable
 *   `webhook-id`, its state and next attempt. `id` orders messages of one `order_key` (one PR of one
 *   queue, or the batch events of one queue): a message waits while an earlier one of its key is pending;
 * - webhook_attempts: every HTTP attempt, with status, duration and error.
 */
import type { Migration } from 'kysely';
import { withAutoId } from '../dialect.js';

export const webhooks: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('webhook_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('events', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('failing_since', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webhook_subscriptions_org').on('webhook_subscriptions').column('org_id').execute();

    await withAutoId(db, db.schema.createTable('webhook_messages'))
      .addColumn('message_id', 'text', (c) => c.notNull().unique())
      .addColumn('subscription_id', 'text', (c) =>
        c.notNull().references('webhook_subscriptions.id').onDelete('cascade'),
      )
      .addColumn('queue_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'bigint', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('order_key', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('manual', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('delivered_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('webhook_messages_subscription_event', ['subscription_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('webhook_messages_due')
      .on('webhook_messages')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('webhook_messages_chain')
      .on('webhook_messages')
      .columns(['subscription_id', 'order_key', 'status', 'id'])
      .execute();

    await withAutoId(db, db.schema.createTable('webhook_attempts'))
      .addColumn('message_id', 'text', (c) => c.notNull().references('webhook_messages.message_id').onDelete('cascade'))
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('success', 'integer', (c) => c.notNull())
      .addColumn('manual', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('webhook_attempts_message')
      .on('webhook_attempts')
      .columns(['message_id', 'id'])
      .execute();
  },

  async down(db): Promise<void> {
    for (const t of ['webhook_attempts', 'webhook_messages', 'webhook_subscriptions'])
      await db.schema.dropTable(t).execute();
  },
};
