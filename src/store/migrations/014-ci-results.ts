/**
 * CI results that must not be lost:
 * - early_ci_statuses: statuses a forge reported for a commit no test run is known to have yet (a
 *   check that finished before its run learned its test commit), kept a while and applied when a run
 *   gets that commit (app/executor/ci-outcome.ts); pruned by the retention sweep;
 * - ci_reruns_waiting: a test run's CI retry waiting for workflow runs to complete before their failed
 *   jobs can be re-run (app/executor/check-reruns.ts);
 * - github_deliveries holds each verified delivery until it is processed: the endpoint answers at once
 *   and a worker processes the stored payload, retrying on failure (app/observing/forge-webhooks.ts). Rows
 *   received before this migration are done.
 */
import type { Migration } from 'kysely';

export const ciResults: Migration = {
  async up(db): Promise<void> {
    await db.schema
      .createTable('early_ci_statuses')
      .addColumn('repo_id', 'text', (c) => c.notNull())
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('context', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('url', 'text')
      .addColumn('description', 'text')
      .addColumn('received_at', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('early_ci_statuses_pk', ['repo_id', 'sha', 'context'])
      .execute();
    await db.schema.createIndex('early_ci_statuses_received').on('early_ci_statuses').column('received_at').execute();
    await db.schema
      .createTable('ci_reruns_waiting')
      .addColumn('run_id', 'text', (c) => c.primaryKey())
      .addColumn('sha', 'text', (c) => c.notNull())
      .addColumn('branch', 'text', (c) => c.notNull())
      .addColumn('workflow_runs', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('github_deliveries').addColumn('payload', 'text').execute();
    await db.schema
      .alterTable('github_deliveries')
      .addColumn('status', 'text', (c) => c.notNull().defaultTo('done'))
      .execute();
    await db.schema
      .alterTable('github_deliveries')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('github_deliveries').addColumn('next_attempt_at', 'bigint').execute();
    await db.schema.alterTable('github_deliveries').addColumn('result', 'text').execute();
    await db.schema.alterTable('github_deliveries').addColumn('last_error', 'text').execute();
    await db.schema
      .createIndex('github_deliveries_due')
      .on('github_deliveries')
      .columns(['status', 'next_attempt_at'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('github_deliveries_due').execute();
    for (const column of ['last_error', 'result', 'next_attempt_at', 'attempts', 'status', 'payload'])
      await db.schema.alterTable('github_deliveries').dropColumn(column).execute();
    await db.schema.dropTable('ci_reruns_waiting').execute();
    await db.schema.dropTable('early_ci_statuses').execute();
  },
};
