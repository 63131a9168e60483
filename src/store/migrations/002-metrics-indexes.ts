/**
 * Indexes for the metrics scrape (src/app/read-models/metrics.ts), which reads the store on every request:
 * - transitions by (queue, PR): the whole history of each PR that moved in the last hour
 *   (store/metrics-transitions.ts). Not (queue, PR, time): SQLite would then scan that covering
 *   index for "which PRs moved since" instead of the (queue, time) range, ~5x slower at 500k rows;
 * - test runs by (queue, creation time): the runs started in the last hour (store/metrics-runs.ts).
 */
import type { Kysely, Migration } from 'kysely';

export const metricsIndexes: Migration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createIndex('transitions_queue_pr').on('transitions').columns(['queue_id', 'pr_number']).execute();
    await db.schema
      .createIndex('test_runs_queue_created')
      .on('test_runs')
      .columns(['queue_id', 'created_at'])
      .execute();
  },

  async down(db: Kysely<any>): Promise<void> {
    await db.schema.dropIndex('test_runs_queue_created').execute();
    await db.schema.dropIndex('transitions_queue_pr').execute();
  },
};
