/**
 * The stable ids of the v2 API: a short id per queue (`queue_short_ids`) and a UUID per pull request
 * of a repository (`pull_request_ids`). Repositories are addressed by their own id, already a UUID.
 * Both ids are derived from what they name (store/api-ids.ts), so a row written twice is the same
 * row; existing queues get theirs here.
 */
import { createHash } from 'node:crypto';
import type { Migration } from 'kysely';

/**
 * A queue's short id, as store/api-ids.ts derived it when this migration was written: ten lowercase
 * letters and digits of the SHA-256 of `queue:<id>`. A copy frozen with the migration, which must
 * give the ids it gave whatever the live code becomes.
 */
function queueShortIdOf(queueId: string): string {
  const hex = createHash('sha256').update(`queue:${queueId}`).digest('hex').slice(0, 16);
  return BigInt(`0x${hex}`).toString(36).padStart(13, '0').slice(-10);
}

export const apiIds: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('queue_short_ids')
      .addColumn('short_id', 'text', (c) => c.primaryKey())
      .addColumn('queue_id', 'text', (c) => c.notNull().unique())
      .execute();
    await db.schema
      .createTable('pull_request_ids')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) => c.notNull())
      .addColumn('pr_number', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('pull_request_ids_repo_number', ['repo_id', 'pr_number'])
      .execute();
    const queues: { id: string }[] = await db.selectFrom('queues').select('id').execute();
    for (const { id } of queues)
      await db
        .insertInto('queue_short_ids')
        .values({ short_id: queueShortIdOf(id), queue_id: id })
        .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropTable('pull_request_ids').execute();
    await db.schema.dropTable('queue_short_ids').execute();
  },
};
