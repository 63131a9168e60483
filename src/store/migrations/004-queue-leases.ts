/**
 * Several instances on one database (docs/instances.md):
 * - queue_leases: which instance drives a queue (runs its effects, polls its forge, fires its timers)
 *   until when. A lease is taken with an upsert that only succeeds when the row is missing, expired,
 *   or already this instance's, and renewed while the instance lives.
 * - effects.claimed_by: the instance that claimed a pending effect, so that whoever takes the queue
 *   over can hand the dead instance's claims back at once instead of waiting for the effect's lease.
 * - test_runs.ci_instance: the instance whose built-in CI runs the run's command; a run still in
 *   progress whose runner is gone is started again by the queue's new holder.
 */
import type { Migration } from 'kysely';

export const queueLeases: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('queue_leases')
      .addColumn('queue_id', 'text', (c) => c.primaryKey().references('queues.id').onDelete('cascade'))
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .addColumn('acquired_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('effects').addColumn('claimed_by', 'text').execute();
    await db.schema.alterTable('test_runs').addColumn('ci_instance', 'text').execute();
  },

  async down(db): Promise<void> {
    await db.schema.alterTable('test_runs').dropColumn('ci_instance').execute();
    await db.schema.alterTable('effects').dropColumn('claimed_by').execute();
    await db.schema.dropTable('queue_leases').execute();
  },
};
