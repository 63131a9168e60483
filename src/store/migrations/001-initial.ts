/** The initial schema. Portable types only (see database.ts); every child row cascades with its parent. */
import type { Migration } from 'kysely';
import { withAutoId } from '../dialect.js';

export const initial: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('orgs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('api_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('revoked_at', 'bigint')
      .execute();

    await db.schema
      .createTable('repos')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
      .addColumn('host', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('forge', 'text', (c) => c.notNull())
      .addColumn('remote', 'text')
      .addColumn('pr_ref_pattern', 'text', (c) => c.notNull())
      .addColumn('ci_command', 'text')
      .addColumn('test_branch_prefix', 'text', (c) => c.notNull())
      .addColumn('required_statuses', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('repos_host_owner_name', ['host', 'owner', 'name'])
      .execute();

    await db.schema
      .createTable('queues')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('repo_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
      .addColumn('target_branch', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('config', 'text', (c) => c.notNull())
      .addColumn('target_sha', 'text')
      .addColumn('internal', 'text', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('queues_repo_branch', ['repo_id', 'target_branch'])
      .execute();

    await db.schema
      .createTable('entries')
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('pr_number', 'bigint', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('trip', 'integer', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'bigint', (c) => c.notNull())
      .addColumn('state_changed_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('entries_pk', ['queue_id', 'pr_number'])
      .execute();
    await db.schema.createIndex('entries_queue_state').on('entries').columns(['queue_id', 'state']).execute();
    await db.schema
      .createIndex('entries_queue_submitted')
      .on('entries')
      .columns(['queue_id', 'submitted_at', 'pr_number'])
      .execute();

    await db.schema
      .createTable('test_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('test_sha', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('required_statuses', 'text')
      .addColumn('required_statuses_source', 'text')
      .execute();
    await db.schema.createIndex('test_runs_queue_status').on('test_runs').columns(['queue_id', 'status']).execute();
    await db.schema.createIndex('test_runs_test_sha').on('test_runs').column('test_sha').execute();

    await db.schema
      .createTable('ci_statuses')
      .addColumn('run_id', 'text', (c) => c.notNull().references('test_runs.id').onDelete('cascade'))
      .addColumn('context', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('description', 'text')
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('ci_statuses_pk', ['run_id', 'context'])
      .execute();

    await db.schema
      .createTable('impacted_targets')
      .addColumn('repo_id', 'text', (c) => c.notNull().references('repos.id').onDelete('cascade'))
      .addColumn('pr_number', 'bigint', (c) => c.notNull())
      .addColumn('head_sha', 'text', (c) => c.notNull())
      .addColumn('targets', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('impacted_targets_pk', ['repo_id', 'pr_number', 'head_sha'])
      .execute();

    await withAutoId(db, db.schema.createTable('effects'))
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('run_at', 'bigint', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('effects_queue_key', ['queue_id', 'key'])
      .execute();
    await db.schema.createIndex('effects_status_run_at').on('effects').columns(['status', 'run_at']).execute();

    await withAutoId(db, db.schema.createTable('queue_events'))
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('queue_events_queue_key', ['queue_id', 'key'])
      .execute();

    await withAutoId(db, db.schema.createTable('transitions'))
      .addColumn('queue_id', 'text', (c) => c.notNull().references('queues.id').onDelete('cascade'))
      .addColumn('pr_number', 'bigint', (c) => c.notNull())
      .addColumn('from_state', 'text')
      .addColumn('to_state', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('run_id', 'text')
      .addColumn('at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('transitions_queue_at').on('transitions').columns(['queue_id', 'at']).execute();
  },

  async down(db): Promise<void> {
    for (const t of [
      'transitions',
      'queue_events',
      'effects',
      'impacted_targets',
      'ci_statuses',
      'test_runs',
      'entries',
      'queues',
      'repos',
      'api_tokens',
      'orgs',
    ]) {
      await db.schema.dropTable(t).execute();
    }
  },
};
