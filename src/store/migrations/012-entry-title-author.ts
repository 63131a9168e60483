/**
 * The title and author of each entry's PR, as columns beside the JSON entry, and an index on the
 * conclusion time, so that listConcludedPullRequests filters and pages a queue's concluded PRs in SQL
 * (store/queue-activity.ts). Existing entries get theirs from their JSON.
 */
import { sql, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';

export const entryTitleAuthor: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .alterTable('entries')
      .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('entries')
      .addColumn('author', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    const field = (name: string) =>
      dialectOf(db) === 'postgres' ? sql`(data::json ->> ${name})` : sql`json_extract(data, ${`$.${name}`})`;
    await sql`update entries set title = coalesce(${field('title')}, ''), author = coalesce(${field('author')}, '')`.execute(
      db,
    );
    await db.schema
      .createIndex('entries_queue_state_changed')
      .on('entries')
      .columns(['queue_id', 'state_changed_at', 'pr_number'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('entries_queue_state_changed').execute();
    await db.schema.alterTable('entries').dropColumn('author').execute();
    await db.schema.alterTable('entries').dropColumn('title').execute();
  },
};
