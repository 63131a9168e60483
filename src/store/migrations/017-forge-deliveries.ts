/**
 * Webhook deliveries of every forge in one table: github_deliveries becomes forge_deliveries, each row
 * saying which forge sent it (`github` for the rows before), so that each forge's worker processes its
 * own deliveries (app/observing/forge-webhooks.ts). A delivery id stays unique across forges (GitHub,
 * Gitea and Forgejo all send UUIDs).
 */
import type { Migration } from 'kysely';

export const forgeDeliveries: Migration = {
  async up(db): Promise<void> {
    await db.schema.dropIndex('github_deliveries_due').execute();
    await db.schema.dropIndex('github_deliveries_received').execute();
    await db.schema.alterTable('github_deliveries').renameTo('forge_deliveries').execute();
    await db.schema
      .alterTable('forge_deliveries')
      .addColumn('forge', 'text', (c) => c.notNull().defaultTo('github'))
      .execute();
    await db.schema.createIndex('forge_deliveries_received').on('forge_deliveries').column('received_at').execute();
    await db.schema
      .createIndex('forge_deliveries_due')
      .on('forge_deliveries')
      .columns(['forge', 'status', 'next_attempt_at'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('forge_deliveries_due').execute();
    await db.schema.dropIndex('forge_deliveries_received').execute();
    await db
      .deleteFrom('forge_deliveries' as never)
      .where('forge' as never, '<>', 'github' as never)
      .execute();
    await db.schema.alterTable('forge_deliveries').dropColumn('forge').execute();
    await db.schema.alterTable('forge_deliveries').renameTo('github_deliveries').execute();
    await db.schema.createIndex('github_deliveries_received').on('github_deliveries').column('received_at').execute();
    await db.schema
      .createIndex('github_deliveries_due')
      .on('github_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
  },
};
