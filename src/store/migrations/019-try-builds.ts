/**
 * Try builds: a PR built with its target (or on top of its queue) and tested by the queue's CI without
 * being queued. One row per try; a PR has at most one try that is not over (`state` queued, building
 * or testing), which a partial unique index keeps.
 */
import { sql, type Migration } from 'kysely';

export const tryBuilds: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('try_builds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('pr_number', 'integer', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('on_queue', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('base_sha', 'text')
      .addColumn('pr_numbers', 'text', (c) => c.notNull())
      .addColumn('test_sha', 'text')
      .addColumn('detail', 'text')
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('try_builds_open')
      .on('try_builds')
      .columns(['queue_id', 'pr_number'])
      .unique()
      .where(sql<boolean>`state in ('queued', 'building', 'testing')`)
      .execute();
    await db.schema
      .createIndex('try_builds_pr')
      .on('try_builds')
      .columns(['queue_id', 'pr_number', 'created_at'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropTable('try_builds').execute();
  },
};
