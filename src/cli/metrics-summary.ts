/** One row per queue from the samples of GET /v1/getMergeQueueMetrics (series in docs/api.md "Metrics"). */
import type { Sample } from './prometheus-text.js';

export interface QueueMetrics {
  repo: string;
  branch: string;
  queueType: string;
  depth: number;
  awaitingMergeability: number;
  testing: number;
  merged1h: number;
  failed1h: number;
  cancelled1h: number;
  restarts1h: number;
  /** Mean of the last hour's test durations, null when nothing finished testing. */
  meanTestSeconds1h: number | null;
  meanWaitSeconds1h: number | null;
}

/** The series a row is made of; all of them carry `queue_type`. */
const QUEUE_SERIES = new Set([
  'mq_depth_current',
  'mq_awaiting_mergeability',
  'mq_testing_slots_active',
  'mq_pr_restarts_1h_total',
  'mq_pr_conclusions_1h_total',
  'mq_pr_test_duration_1h_seconds_sum',
  'mq_pr_test_duration_1h_seconds_count',
  'mq_pr_wait_duration_1h_seconds_sum',
  'mq_pr_wait_duration_1h_seconds_count',
]);

/**
 * One row per (repo, branch, queue_type), from the series named in docs/api.md "Metrics". Other
 * series (per-repository ones without `queue_type`, such as greenline_bisection_runs_1h_total) make no row.
 */
export function summarize(samples: Sample[]): QueueMetrics[] {
  const rows = new Map<string, QueueMetrics>();
  const sums = new Map<string, number>();
  for (const { name, labels, value } of samples) {
    if (!QUEUE_SERIES.has(name)) continue;
    const { repo = '', branch = '', queue_type: queueType = '' } = labels;
    const key = `${repo}\n${branch}\n${queueType}`;
    let row = rows.get(key);
    if (!row) {
      row = {
        repo,
        branch,
        queueType,
        depth: 0,
        awaitingMergeability: 0,
        testing: 0,
        merged1h: 0,
        failed1h: 0,
        cancelled1h: 0,
        restarts1h: 0,
        meanTestSeconds1h: null,
        meanWaitSeconds1h: null,
      };
      rows.set(key, row);
    }
    const add = (k: string) => sums.set(`${key}\n${k}`, (sums.get(`${key}\n${k}`) ?? 0) + value);
    switch (name) {
      case 'mq_depth_current':
        row.depth = value;
        break;
      case 'mq_awaiting_mergeability':
        row.awaitingMergeability = value;
        break;
      case 'mq_testing_slots_active':
        row.testing = value;
        break;
      case 'mq_pr_restarts_1h_total':
        row.restarts1h = value;
        break;
      case 'mq_pr_conclusions_1h_total':
        if (labels.conclusion === 'merged') row.merged1h = value;
        else if (labels.conclusion === 'failed') row.failed1h = value;
        else if (labels.conclusion === 'cancelled') row.cancelled1h = value;
        break;
      case 'mq_pr_test_duration_1h_seconds_sum':
      case 'mq_pr_test_duration_1h_seconds_count':
      case 'mq_pr_wait_duration_1h_seconds_sum':
      case 'mq_pr_wait_duration_1h_seconds_count':
        add(name);
        break;
    }
  }
  const mean = (key: string, metric: string): number | null => {
    const count = sums.get(`${key}\n${metric}_count`) ?? 0;
    return count === 0 ? null : (sums.get(`${key}\n${metric}_sum`) ?? 0) / count;
  };
  for (const [key, row] of rows) {
    row.meanTestSeconds1h = mean(key, 'mq_pr_test_duration_1h_seconds');
    row.meanWaitSeconds1h = mean(key, 'mq_pr_wait_duration_1h_seconds');
  }
  return [...rows.values()];
}
