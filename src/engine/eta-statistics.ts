/**
 * What a queue's recent finished runs say about its runs to come (eta.ts, the estimates): the median
 * CI time, the failure rate per run and per PR, and the durations the model samples from.
 */
import { percentile } from '../lib/percentile.js';
import type { TestRun } from './types.js';

/** What the queue's recent history says about its runs. */
export interface QueueStatistics {
  /** Median duration of the recent finished main runs, in ms; null when none finished yet. */
  ciMs: number | null;
  /** Share of those runs that failed, 0 to 1. */
  failureRate: number;
  /** How many finished runs the figures come from. */
  samples: number;
  /** Their durations, ascending, in ms (absent: every run takes `ciMs`). */
  durations?: number[];
  /** Probability that one PR fails its tests, counted per PR (`prFailures`; absent: `failureRate`). */
  prFailureRate?: number;
  /** How many PR outcomes `prFailureRate` is counted from (absent: the rate is taken as known). */
  prOutcomes?: number;
}

/** How many of the latest finished runs the statistics use. */
export const STATISTICS_RUNS = 50;

export type FinishedRun = Pick<TestRun, 'queueType' | 'status' | 'createdAt' | 'finishedAt'> &
  Partial<Pick<TestRun, 'prNumbers'>>;

/** Statistics of finished runs (any order; the latest STATISTICS_RUNS main runs count). */
export function queueStatistics(runs: readonly FinishedRun[]): QueueStatistics {
  const finished = runs
    .filter(
      (r) => r.queueType === 'main' && (r.status === 'succeeded' || r.status === 'failed') && r.finishedAt !== null,
    )
    .sort((a, b) => b.finishedAt! - a.finishedAt!)
    .slice(0, STATISTICS_RUNS);
  if (finished.length === 0) return { ciMs: null, failureRate: 0, samples: 0 };
  const durations = finished.map((r) => Math.max(0, r.finishedAt! - r.createdAt)).sort((a, b) => a - b);
  const failed = finished.filter((r) => r.status === 'failed').length;
  const failureRate = failed / finished.length;
  const perPr = prFailures(finished.map((r) => [Math.max(1, r.prNumbers?.length ?? 1), r.status === 'failed']));
  return {
    ciMs: percentile(durations, 50),
    failureRate,
    samples: finished.length,
    durations,
    prFailureRate: perPr.rate,
    prOutcomes: perPr.outcomes,
  };
}

type RunOutcome = readonly [size: number, failed: boolean];

/**
 * The probability p that one PR fails its tests, from finished runs of several sizes: each good PR
 * passes in one finished main run (a restarted run is cancelled, not finished), each failed run holds
 * one PR that failed it (most of the time: two bad PRs in one batch are rare), so
 * p = failed runs / (PRs of the passed runs + failed runs). Counting per PR, not per run, keeps the
 * good PRs of a failed batch, tested again after their bisection, from diluting it. `outcomes`: how
 * many PR outcomes it is counted from (PRs of the passed runs + failed runs).
 */
export function prFailures(runs: readonly RunOutcome[]): { rate: number; outcomes: number } {
  let passed = 0;
  let failed = 0;
  for (const [size, f] of runs) {
    if (f) failed++;
    else passed += size;
  }
  const outcomes = passed + failed;
  return { rate: outcomes === 0 ? 0 : failed / outcomes, outcomes };
}
