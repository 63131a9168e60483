/**
 * The head branch of each entry's PR, as a column beside the JSON entry, so that
 * getSubmittedPullRequest can find a PR by `pr.branch` (contract §2.4) with an index.
 */
import type { Migration } from 'kysely';

export const entryHeadBranch: Migration = {
  async up(db): Promise<void> {
    await db.schema.alterTable('entries').addColumn('head_branch', 'text').execute();
    await db.schema
      .createIndex('entries_queue_head_branch')
      .on('entries')
      .columns(['queue_id', 'head_branch'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('entries_queue_head_branch').execute();
    await db.schema.alterTable('entries').dropColumn('head_branch').execute();
  },
};
