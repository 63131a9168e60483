/**
 * The metric families of GET /v1/getMergeQueueMetrics: Trunk's set (contract §7) with its exact
 * names, HELP texts, labels and buckets, then greenline's own `greenline_*` series. A fresh registry
 * is filled on every scrape from the store (src/app/read-models/metrics.ts), so every instance answers the same.
 * docs/metrics.md defines each series.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { QueueType, RunStatus } from '../engine/types.js';

/** Labels on every series of contract §7: one series set per (repo, branch, queue_type). */
export const QUEUE_LABELS = ['repo', 'branch', 'queue_type'] as const;
export type QueueLabels = Record<(typeof QUEUE_LABELS)[number], string>;

export const QUEUE_TYPES: readonly QueueType[] = ['main', 'bisection'];
export const CONCLUSIONS = ['merged', 'failed', 'cancelled'] as const;
export type Conclusion = (typeof CONCLUSIONS)[number];
export const RUN_STATUSES: readonly RunStatus[] = ['creating', 'in_progress', 'succeeded', 'failed', 'cancelled'];

/** Contract §7 buckets (seconds) of the duration histograms; prom-client adds +Inf. */
export const DURATION_BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200];
/** PRs per test run: single PRs, then the batch sizes queues are usually set to. */
export const GROUP_SIZE_BUCKETS = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32];

export function newQueueMetrics() {
  const registers = [new Registry()];
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name, help, labelNames, registers });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]) =>
    new Histogram<L>({ name, help, labelNames, buckets, registers });
  const withConclusion = [...QUEUE_LABELS, 'conclusion'] as const;
  return {
    registry: registers[0]!,
    // ---- contract §7 (HELP texts as Trunk's documentation gives them, where it gives them)
    depth: gauge('mq_depth_current', 'PRs currently in the queue', QUEUE_LABELS),
    awaiting: gauge('mq_awaiting_mergeability', 'Number of PRs currently awaiting mergeability', QUEUE_LABELS),
    testing: gauge('mq_testing_slots_active', 'PRs currently in TESTING state', QUEUE_LABELS),
    conclusions: gauge('mq_pr_conclusions_1h_total', 'PRs exiting the queue in last hour', withConclusion),
    restarts: gauge('mq_pr_restarts_1h_total', 'PR restarts in last hour', QUEUE_LABELS),
    wait: histogram(
      'mq_pr_wait_duration_1h_seconds',
      'Time PRs waited from entering PENDING until testing started, testing starts in last hour',
      QUEUE_LABELS,
      DURATION_BUCKETS,
    ),
    test: histogram(
      'mq_pr_test_duration_1h_seconds',
      'Time PRs spent in TESTING, test spells ended in last hour',
      QUEUE_LABELS,
      DURATION_BUCKETS,
    ),
    inQueue: histogram(
      'mq_pr_time_in_queue_1h_seconds',
      'Time PRs spent in the queue from admission until they left it, PRs exiting in last hour',
      withConclusion,
      DURATION_BUCKETS,
    ),
    // ---- greenline's own series
    ciRuns: gauge(
      'greenline_ci_runs_started_1h_total',
      'Test runs whose CI was started (test commit built), runs created in last hour',
      QUEUE_LABELS,
    ),
    ciRunsPerMerge: gauge(
      'greenline_ci_runs_per_merged_pr_1h',
      'Test runs whose CI was started per PR merged, last hour; absent when no PR merged',
      ['repo', 'branch'] as const,
    ),
    groupSize: histogram(
      'greenline_batch_size_1h',
      'PRs under test per test run (1 = alone, more = a batch or bisection part), runs created in last hour',
      QUEUE_LABELS,
      GROUP_SIZE_BUCKETS,
    ),
    bisectionRuns: gauge(
      'greenline_bisection_runs_1h_total',
      'Bisection test runs created in last hour, by their status now',
      ['repo', 'branch', 'status'] as const,
    ),
    ciRetries: counter(
      'greenline_ci_retries_total',
      'Times CI of a test run was run again on the same commit (ciRetries, or after a cancellation), since the queue was created',
      ['repo', 'branch'] as const,
    ),
    flakyPasses: counter(
      'greenline_ci_flaky_passes_total',
      'Test runs that passed after CI was run again (flaky), since the queue was created',
      ['repo', 'branch'] as const,
    ),
    statusFlakyPasses: counter(
      'greenline_status_flaky_passes_total',
      'Test runs where this required status failed and then passed when CI was run again, since the queue was created',
      ['repo', 'branch', 'status'] as const,
    ),
    statusResults: counter(
      'greenline_status_results_total',
      'Results of this required status counted for flakiness (passes, flaky passes, failures that held), since the queue was created',
      ['repo', 'branch', 'status'] as const,
    ),
    statusQuarantined: gauge(
      'greenline_status_quarantined',
      '1 while this required status is quarantined (does not gate merges); by = setting or automatic',
      ['repo', 'branch', 'status', 'by'] as const,
    ),
    laneDepth: gauge(
      'greenline_lane_depth',
      'PRs in the queue per lane of a parallel queue (overlapping impacted targets); lane = PR number at its front',
      ['repo', 'branch', 'lane'] as const,
    ),
    frozenSeconds: new Counter({
      name: 'greenline_queue_frozen_seconds_total',
      help: 'Seconds the queue has spent frozen by its freezes (scheduled windows and one-off freezes)',
      labelNames: ['repo', 'branch'] as const,
      registers,
    }),
  };
}

export type QueueMetrics = ReturnType<typeof newQueueMetrics>;
