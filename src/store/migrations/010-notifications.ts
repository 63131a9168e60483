/**
 * Chat notifications (docs/notifications.md) and the PR link template of a repository:
 * - notify_subscriptions: an organization's chat channels (Slack, Teams, generic chat webhook), for
 *   all its queues or one (repo_id + target_branch), the events they want (JSON string[]), and
 *   whether they are enabled (a channel failing continuously for 3 days is disabled);
 * - notify_messages and notify_attempts: the durable outbox of the messages, the same shape as
 *   webhook_messages and webhook_attempts (one set of outbox queries serves both: src/delivery/);
 * - repos.pr_url_template: where a PR is shown on its forge (`{n}` = PR number); null = the GitHub URL.
 */
import type { Migration } from 'kysely';
import { withAutoId } from '../dialect.js';

export const notifications: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('notify_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('repo_id', 'text', (c) => c.references('repos.id').onDelete('cascade'))
      .addColumn('target_branch', 'text')
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('failing_since', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('notify_subscriptions_org').on('notify_subscriptions').column('org_id').execute();

    await withAutoId(db, db.schema.createTable('notify_messages'))
      .addColumn('message_id', 'text', (c) => c.notNull().unique())
      .addColumn('subscription_id', 'text', (c) =>
        c.notNull().references('notify_subscriptions.id').onDelete('cascade'),
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
      .addColumn('claimed_by', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('delivered_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('notify_messages_subscription_event', ['subscription_id', 'event_id'])
      .execute();
    await db.schema
      .createIndex('notify_messages_due')
      .on('notify_messages')
      .columns(['status', 'next_attempt_at'])
      .execute();
    await db.schema
      .createIndex('notify_messages_chain')
      .on('notify_messages')
      .columns(['subscription_id', 'order_key', 'status', 'id'])
      .execute();

    await withAutoId(db, db.schema.createTable('notify_attempts'))
      .addColumn('message_id', 'text', (c) => c.notNull().references('notify_messages.message_id').onDelete('cascade'))
      .addColumn('attempted_at', 'bigint', (c) => c.notNull())
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('success', 'integer', (c) => c.notNull())
      .addColumn('manual', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('notify_attempts_message')
      .on('notify_attempts')
      .columns(['message_id', 'id'])
      .execute();

    await db.schema.alterTable('repos').addColumn('pr_url_template', 'text').execute();
  },

  async down(db): Promise<void> {
    await db.schema.alterTable('repos').dropColumn('pr_url_template').execute();
    for (const t of ['notify_attempts', 'notify_messages', 'notify_subscriptions'])
      await db.schema.dropTable(t).execute();
  },
};
