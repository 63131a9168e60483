/**
 * The github forge: webhook deliveries already processed (GitHub redelivers; each `X-GitHub-Delivery`
 * id is acted on once), and the GitHub App installation a repository was connected with.
 */
import type { Migration } from 'kysely';

export const githubDeliveries: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('github_deliveries')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event', 'text', (c) => c.notNull())
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('github_deliveries_received').on('github_deliveries').column('received_at').execute();
    await db.schema.alterTable('repos').addColumn('github_installation_id', 'bigint').execute();
  },

  async down(db): Promise<void> {
    await db.schema.alterTable('repos').dropColumn('github_installation_id').execute();
    await db.schema.dropTable('github_deliveries').execute();
  },
};
