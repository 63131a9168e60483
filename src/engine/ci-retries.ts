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
 * How retries meet the rest of the queue: a failed main run is retried at once, in parallel with
 * what the queue does meanwhile, and the runs behind it that include it are evidence (a bad PR fails
 * every run that includes it; a flake fails one run):
 *
 * - While the retry runs the group stays TESTING and the runs behind keep testing on top of it. A run
 *   behind that includes it and passes vouches for it (SUCCESSOR_TEST_RUN_PASSED, as under optimistic
 *   merging) and the retry is stopped at once; the retry passing vouches too
 *   (TEST_RUN_PASSED_AFTER_RETRY). A run behind that had already passed when it failed vouches at once,
 *   without a retry.
 * - A run behind that includes it and fails (or had failed) is evidence that the failure is its own:
 *   the group steps out of the chain — PENDING_FAILURE, every run built on it restarts without it as
 *   for a known failure (validity.ts `knownToFail`) — but is not rejected: its retry keeps running and
 *   decides. It passes: the group re-enters the queue as a cleared bisection part does (bisection.ts
 *   `readmit`, policy 4). It fails: FAILED with the run's reason (a bad PR failed twice). The failure
 *   of the run behind is explained by the group ahead: that run is not retried, its group restarts
 *   without the culprit (PREREQUISITE_MERGE_ITEM_FAILED).
 * - `pendingFailureDepth` counts once the retries are spent. Under anti-flake (optimistic merging with
 *   a pending failure depth), which keeps failing groups in the base of the runs behind, a failed run
 *   is retried and stays TESTING until its retries are spent, and passes vouch for it (run-results.ts).
 *
 * Each attempt gets the full testing timeout from its own start. With `ciRetries` 0 none of this
 * applies (cancellations are still run again once).
 */
import { MINUTE_MS } from '../lib/time.js';
import { percentile } from '../lib/percentile.js';
import { readmit } from './bisection.js';
import type { Draft } from './draft.js';
import { abandonRun, headOf, isInFlight, keepsFailingInBase, membersOf, samePr } from './runs.js';
import { Topology } from './topology.js';
import { emitBatchEvent, eventPayload, move } from './transitions.js';
import type { Entry, QueueConfig, QueueSnapshot, TestRun } from './types.js';
import { activeGroups, knownToFail, restartGroup } from './validity.js';
import { bisectingSet } from './bisection-state.js';
import { gatingStatuses, quarantinedNow } from './quarantine.js';

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

/** Whether failures of `run` are judged by the evidence of the runs behind it (see the header). */
const byEvidence = (d: Draft, run: TestRun): boolean =>
  (d.config.ciRetries ?? 0) > 0 && run.queueType === 'main' && !keepsFailingInBase(d);

/** A group whose main run failed and is being retried, still TESTING: the runs behind decide on it. */
function isSuspect(run: TestRun | undefined, members: readonly Entry[]): run is TestRun {
  return (
    run !== undefined &&
    run.queueType === 'main' &&
    isInFlight(run) &&
    (run.failedRetries ?? 0) > 0 &&
    members.length > 0 &&
    members.every((m) => m.state === 'TESTING')
  );
}

/** Whether `run` tested every PR of `group` at its current head. */
function includes(run: TestRun, group: readonly Entry[]): boolean {
  return group.every((m) => run.prs.some((p) => samePr(p, headOf(m))));
}

const STATUS_FAILED = 'TEST_RUN_REQUIRED_STATUS_FAILED';

/**
 * A main run's required statuses failed (`detail`: what CI said). Returns whether the evidence of the
 * queue settled what happens (see the header):
 *
 * - the run included a suspect ahead: the suspect steps out, and this run's group restarts without
 *   it (its failure is explained; it is not retried);
 * - a run behind that included the group already passed: the group is vouched for, without a retry;
 * - a run behind that included it already failed: it is retried and steps out at once;
 * - the first run behind that includes it would answer later than it is worth waiting for: the
 *   runs behind would spend more CI time on top of it until then (each of them, for as long) than
 *   they have spent so far and would throw away if it stepped out now. It is retried and steps out
 *   at once. (With no run behind that includes it, the retry answers first: it stays TESTING.)
 *
 * False: the caller retries the run if it may (the group stays TESTING, a suspect), else the failure
 * counts.
 */
export function failedByEvidence(d: Draft, run: TestRun, detail: string | null): boolean {
  if (!byEvidence(d, run)) return false;
  const groups = activeGroups(d, Topology.of(d));
  const own = membersOf(d, run).filter((m) => m.state === 'TESTING');
  if (own.length === 0) return false;
  if (explainedAhead(d, run, own, groups, detail)) return true;
  if ((run.failedRetries ?? 0) >= (d.config.ciRetries ?? 0)) return false;
  let failedBehind: TestRun | null = null;
  const answering: TestRun[] = [];
  for (const [id, members] of groups) {
    const behind = d.run(id);
    if (id === run.id || !behind || behind.queueType !== 'main' || !includes(behind, own)) continue;
    if (behind.status === 'succeeded' && members.every((m) => m.state === 'TESTS_PASSED')) {
      d.putRun(failedRun(d, run, detail));
      for (const m of own)
        move(d, m, 'TESTS_PASSED', 'SUCCESSOR_TEST_RUN_PASSED', { patch: { verifiedByTestRun: behind.id } });
      return true;
    }
    if (behind.status === 'failed' || (isInFlight(behind) && (behind.failedRetries ?? 0) > 0)) failedBehind = behind;
    else if (isInFlight(behind)) answering.push(behind);
  }
  const why = failedBehind
    ? `${ofWhat(run)} failed, and so did a run that includes it (${ofWhat(failedBehind)})`
    : evidenceTooLate(d, run, answering);
  if (why === null || !retryCi(d, run, 'failure')) return false;
  stepOut(d, d.run(run.id)!, own, why);
  return true;
}

/**
 * Suspects ahead that `run` included are stepped out by its failure; then, or when it included a
 * group already known to fail, its failure is explained and its group restarts without them.
 */
function explainedAhead(
  d: Draft,
  run: TestRun,
  own: readonly Entry[],
  groups: ReadonlyMap<string, Entry[]>,
  detail: string | null,
): boolean {
  let explained = false;
  for (const [id, members] of groups) {
    const ahead = d.run(id);
    if (id === run.id || !isSuspect(ahead, members) || !includes(run, members)) continue;
    stepOut(d, ahead, members, `${ofWhat(ahead)} failed, and so did a run that includes it (${ofWhat(run)})`);
    explained = true;
  }
  const ownNumbers = new Set(run.prNumbers);
  const bisecting = bisectingSet(d);
  explained ||= run.prs.some((p) => {
    const e = d.entry(p.number);
    return !ownNumbers.has(p.number) && e !== undefined && knownToFail(d, e, bisecting);
  });
  if (!explained) return false;
  d.putRun(failedRun(d, run, detail));
  restartGroup(d, d.run(run.id), own, 'PREREQUISITE_MERGE_ITEM_FAILED');
  return true;
}

/**
 * Why waiting for the runs behind (`answering`: in flight, including the group) is not worth it, or
 * null when it is. Their answer is expected one duration of the failed run after each started; until
 * the first comes, each of them keeps testing on top of the failure, against what they have spent so
 * far, which stepping out now throws away.
 */
function evidenceTooLate(d: Draft, run: TestRun, answering: readonly TestRun[]): string | null {
  // No run behind includes it: the retry is the first answer; runs started meanwhile build on it.
  if (answering.length === 0) return null;
  const took = d.at - run.createdAt;
  const wait = Math.max(0, Math.min(...answering.map((b) => b.createdAt + took)) - d.at);
  const spent = answering.reduce((sum, b) => sum + (d.at - b.createdAt), 0);
  if (wait * answering.length <= spent) return null;
  const minutes = Math.max(1, Math.round(wait / MINUTE_MS));
  return `${ofWhat(run)} failed, and the first run behind it that includes it answers in about ${minutes} minute${minutes === 1 ? '' : 's'}`;
}

const failedRun = (d: Draft, run: TestRun, detail: string | null): TestRun => ({
  ...run,
  status: 'failed',
  finishedAt: d.at,
  failureReason: STATUS_FAILED,
  failureDetail: detail,
});

const ofWhat = (run: TestRun): string => `the test run of ${run.prNumbers.map((n) => `#${n}`).join(', ')}`;

/**
 * A suspect steps out of the chain: PENDING_FAILURE while its retry runs; the runs built on it
 * restart without it (validity sweep).
 */
function stepOut(d: Draft, run: TestRun, members: readonly Entry[], why: string): void {
  const detail = `${why}: the runs behind it are tested without it until its retry decides`;
  const moved = members
    .filter((m) => m.state === 'TESTING')
    .map((m) => move(d, m, 'PENDING_FAILURE', STATUS_FAILED, { detail }).prNumber);
  emitBatchEvent(d, 'pull_request_batch.pending_failure', moved, run, STATUS_FAILED);
}

/**
 * A main run passed. A suspect ahead that it included is vouched for (SUCCESSOR_TEST_RUN_PASSED) and
 * its retry stopped (optimistic merging does this for every group ahead, run-results.ts). Returns
 * whether the run was the retry of a group that stepped out: it re-enters the queue (policy 4).
 */
export function retryEvidencePassed(d: Draft, run: TestRun): boolean {
  const members = membersOf(d, run);
  if (members.length > 0 && members.every((m) => m.state === 'PENDING_FAILURE')) {
    readmit(d, run, members, new Set(), 'TEST_RUN_PASSED_AFTER_RETRY');
    return true;
  }
  if (!byEvidence(d, run) || d.config.canOptimisticallyMerge) return false;
  for (const [id, group] of activeGroups(d, Topology.of(d))) {
    const ahead = d.run(id);
    if (id === run.id || !isSuspect(ahead, group) || !includes(run, group)) continue;
    abandonRun(d, ahead);
    for (const m of group)
      move(d, m, 'TESTS_PASSED', 'SUCCESSOR_TEST_RUN_PASSED', { patch: { verifiedByTestRun: run.id } });
  }
  return false;
}
