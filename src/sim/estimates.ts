/**
 * What the simulation measures of greenline's estimates (`measureEta`): the estimated merge time a
 * client would read right after submitting a PR, from the latest finished runs as the service keeps
 * them, held until the PR concludes.
 */
import {
  queueOutlook,
  queueStatistics,
  STATISTICS_RUNS,
  type FinishedRun,
  type PrOutlook,
  type QueueSnapshot,
  type TestRun,
} from '../engine/index.js';

export type SubmissionEstimate = Pick<PrOutlook, 'estimatedMergeAt' | 'estimatedMergeRange'>;

export class SubmissionEstimates {
  /** The latest finished runs, for the queue statistics the estimates use (as the service keeps them). */
  private readonly finishedRuns: FinishedRun[] = [];
  /** Each PR's estimated merge time at submission (queueOutlook), null when there was none. */
  private readonly estimates = new Map<number, SubmissionEstimate>();

  /** A run that finished at `now`, as the server keeps it: its last outcome (a failure CI retried is not one). */
  runFinished(run: TestRun, outcome: 'success' | 'failure', now: number): void {
    this.finishedRuns.push({
      queueType: run.queueType,
      prNumbers: run.prNumbers,
      status: outcome === 'success' ? 'succeeded' : 'failed',
      createdAt: run.createdAt,
      finishedAt: now,
    });
    if (this.finishedRuns.length > 2 * STATISTICS_RUNS) this.finishedRuns.splice(0, STATISTICS_RUNS);
  }

  /** The estimate a client would read right after submitting (getSubmittedPullRequest). */
  submitted(snapshot: QueueSnapshot, prNumber: number, now: number): void {
    const outlook = queueOutlook(snapshot, queueStatistics(this.finishedRuns), now).get(prNumber);
    this.estimates.set(prNumber, {
      estimatedMergeAt: outlook?.estimatedMergeAt ?? null,
      estimatedMergeRange: outlook?.estimatedMergeRange ?? null,
    });
  }

  /** The PR's estimate at submission, forgotten now that it concluded; undefined when none was taken. */
  concluded(prNumber: number): SubmissionEstimate | undefined {
    const estimate = this.estimates.get(prNumber);
    this.estimates.delete(prNumber);
    return estimate;
  }
}
