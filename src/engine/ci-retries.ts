/**
 * CI that misbehaves (greenline extensions, all off by default):
 *
 * - `ciRetries` (0–5): a run whose required statuses failed is tested again on the same test commit,
 *   up to `ciRetries` times, before the failure counts. A run that then passes is flaky: its PRs pass
 *   with TEST_RUN_PASSED_AFTER_RETRY.
 * - Cancelled is not failed: a run CI cancelled is tested again, up to max(1, `ciRetries`) times (so
 *   at least once even with `ciRetries` 0); cancelled once more, it fails with TEST_RUN_CANCELLED_BY_CI.
 *   Failures and cancellations are counted apart: a failure retried once, then a cancellation, still
 *   gets its cancellation retry.
 * - `requiredStatusStartTimeoutMinutes`: a required status not reported at all (not even pending)
 *   this long after the attempt's CI started fails the run with REQUIRED_STATUS_NEVER_STARTED, naming
 *   it. Not retried: a check that never starts (a path filter, a missing trigger) will not start on
 *   the same commit either.
 * - `testingTimeoutMinutes: "auto"`: twice the p95 of the last 50 successful runs, never under 10
 *   minutes; `testingTimeoutMinutes` applies until 10 runs are known.
 *
 * How retries meet the rest of the queue: while a run is retried its PRs stay TESTING, so a retry
 * happens before PENDING_FAILURE — `pendingFailureDepth` only counts once the retries are spent, and
 * the runs behind keep testing on top of it (it is not known to fail). Under optimistic merging a run
 * behind that passes still vouches for the PRs of a run being retried (SUCCESSOR_TEST_RUN_PASSED),
 * and the retry is stopped. Each attempt gets the full testing timeout from its own start.
 */
import { MINUTE_MS } from '../lib/time.js';
import { percentile } from '../lib/percentile.js';
import type { Draft } from './draft.js';
import { gatingStatuses, quarantinedNow } from './quarantine.js';
import { eventPayload } from './transitions.js';
import type { QueueConfig, QueueSnapshot, TestRun } from './types.js';

export const MAX_CI_RETRIES = 5;
/** How many successful runs `testingTimeoutMinutes: "auto"` looks at, and how many it needs first. */
export const RUN_DURATIONS_KEPT = 50;
export const RUN_DURATIONS_NEEDED = 10;
export const AUTO_TIMEOUT_FLOOR_MINUTES = 10;

/** The testing timeout in force, in minutes, given the durations (ms) of recent successful runs. */
export function testingTimeoutInForce(config: QueueConfig, runDurations: readonly number[]): number {
  if (!config.testingTimeoutAuto || runDurations.length < RUN_DURATIONS_NEEDED) return config.testingTimeoutMinutes;
  const p95 = percentile(
    [...runDurations].sort((a, b) => a - b),
    95,
  ) as number;
  return Math.max(AUTO_TIMEOUT_FLOOR_MINUTES, Math.ceil((2 * p95) / MINUTE_MS));
}

/** The testing timeout in force for a queue, in minutes (getQueue `testingTimeoutMinutesInForce`). */
export const testingTimeoutInForceOf = (s: QueueSnapshot): number =>
  testingTimeoutInForce(s.config, (s.internal.runDurations as number[] | undefined) ?? []);

/** The testing timeout in force for a draft, in minutes. */
export const timeoutMinutes = (d: Draft): number => testingTimeoutInForce(d.config, d.internal.runDurations);

/** When the run's current attempt times out: the first from the run's creation, a retry from its start. */
export function attemptDeadline(d: Draft, run: TestRun): number {
  const retried = (run.failedRetries ?? 0) + (run.cancelledRetries ?? 0) > 0;
  return (retried ? (run.ciStartedAt ?? run.createdAt) : run.createdAt) + timeoutMinutes(d) * MINUTE_MS;
}

export const wasRetried = (run: TestRun): boolean => (run.failedRetries ?? 0) + (run.cancelledRetries ?? 0) > 0;

/**
 * Runs the CI of `run` again when its budget allows, for a failed (`failure`) or cancelled attempt.
 * Returns whether it did; if not, the caller fails the run.
 */
export function retryCi(d: Draft, run: TestRun, cause: 'failure' | 'cancelled'): boolean {
  const retries = d.config.ciRetries ?? 0;
  const failed = run.failedRetries ?? 0;
  const cancelled = run.cancelledRetries ?? 0;
  if (cause === 'failure' ? failed >= retries : cancelled >= Math.max(1, retries)) return false;
  if (run.testSha === null) return false;
  const next: TestRun = {
    ...run,
    ciStartedAt: d.at,
    statusesSeen: [],
    ...(cause === 'failure' ? { failedRetries: failed + 1 } : { cancelledRetries: cancelled + 1 }),
  };
  d.putRun(next);
  d.internal.ciRetries++;
  const attempt = failed + cancelled + 1;
  d.emit({
    kind: 'retryCi',
    key: `${run.id}:retryCi:${attempt}`,
    runId: run.id,
    branch: run.testBranch,
    sha: run.testSha,
    prNumbers: run.prNumbers,
    requiredStatuses: run.requiredStatuses ?? d.config.requiredStatuses,
    timeoutMinutes: timeoutMinutes(d),
    attempt,
  });
  d.emit({
    kind: 'emitEvent',
    key: `${run.id}:retry_requested:${attempt}`,
    event: eventPayload(
      d,
      'test_run.retry_requested',
      run.prNumbers,
      run,
      cause === 'failure' ? 'TEST_RUN_REQUIRED_STATUS_FAILED' : 'TEST_RUN_CANCELLED_BY_CI',
    ),
  });
  return true;
}

/** Remembers how long a successful main run took, for `testingTimeoutMinutes: "auto"`. */
export function recordRunDuration(d: Draft, run: TestRun): void {
  if (run.queueType !== 'main' || run.ciStartedAt === undefined) return;
  const durations = d.internal.runDurations;
  durations.push(d.at - run.ciStartedAt);
  if (durations.length > RUN_DURATIONS_KEPT) durations.splice(0, durations.length - RUN_DURATIONS_KEPT);
}

/**
 * The required statuses of the run's current attempt not reported yet; empty when not known.
 * Quarantined statuses do not gate, so they are not waited for (quarantine.ts, `gatingStatuses`).
 */
export function missingStatuses(run: TestRun, quarantined: readonly string[] = []): string[] {
  const seen = new Set(run.statusesSeen ?? []);
  return gatingStatuses(run.requiredStatuses ?? [], quarantined).filter((c) => !seen.has(c));
}

/** When a required status not reported by then fails the run; null when off or nothing is missing. */
export function startDeadline(d: Draft, run: TestRun): number | null {
  const minutes = d.config.requiredStatusStartTimeoutMinutes ?? 0;
  if (minutes <= 0 || run.status !== 'in_progress' || run.ciStartedAt === undefined) return null;
  if (missingStatuses(run, quarantinedNow(d.config, d.internal.autoQuarantined)).length === 0) return null;
  return run.ciStartedAt + minutes * MINUTE_MS;
}
