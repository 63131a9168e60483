/**
 * Who manages a queue's configuration (contract §2.10, "Management source"): `managed_by` is
 * 'terraform' once a config write came from Terraform or OpenTofu, null otherwise; `drift_since` is
 * when the first config write from anything else came after the last Terraform write (null: none).
 */
import type { Migration } from 'kysely';

export const queueManagement: Migration = {
  async up(db): Promise<void> {
    // One column per statement: SQLite's ALTER TABLE adds one column at a time.
    await db.schema.alterTable('queues').addColumn('managed_by', 'text').execute();
    await db.schema.alterTable('queues').addColumn('drift_since', 'bigint').execute();
  },

  async down(db): Promise<void> {
    await db.schema.alterTable('queues').dropColumn('drift_since').execute();
    await db.schema.alterTable('queues').dropColumn('managed_by').execute();
  },
};
