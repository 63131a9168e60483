/**
 * What the forge and CI report about runs: test branch built (→ TESTING, start CI), build failed,
 * CI passed or failed. A passing main run under optimistic merging vouches for every not-yet-merged
 * entry it included ahead of its own group (contract §6.4): they become TESTS_PASSED
 * (SUCCESSOR_TEST_RUN_PASSED, `verifiedByTestRun` = this run) and their own runs stop.
 */
import { bisectingSet, bisectionOfRun } from './bisection-state.js';
import {
  failedByEvidence,
  recordRunDuration,
  retryCi,
  retryEvidencePassed,
  timeoutMinutes,
  wasRetried,
} from './ci-retries.js';
import { bisectionFailed, bisectionPassed } from './bisection.js';
import { notePassed, whyAlone } from './blame.js';
import type { Draft } from './draft.js';
import { rebuildCreated, rebuildFailed } from './merging.js';
import { countStatusResults, noteFailedStatuses } from './quarantine.js';
import { abandonRun, isInFlight, membersOf } from './runs.js';
import { Topology } from './topology.js';
import { emitBatchEvent, eventPayload, move } from './transitions.js';
import type { EngineEvent, FailureReason, Rejection, TestRun } from './types.js';

type Ev<K extends EngineEvent['kind']> = Extract<EngineEvent, { kind: K }>;

function findRun(d: Draft, runId: string, status: TestRun['status']): TestRun | Rejection {
  const run = d.run(runId);
  if (!run) return { code: 'RUN_NOT_FOUND', message: `unknown test run ${runId}` };
  if (run.status !== status)
    return { code: 'STALE_RUN_EVENT', message: `test run ${runId} is ${run.status}, not ${status}` };
  return run;
}

const isRejection = (x: TestRun | Rejection): x is Rejection => 'code' in x;

export function onTestBranchCreated(d: Draft, ev: Ev<'testBranchCreated'>): Rejection | null {
  const rebuild = d.internal.merge?.rebuild;
  if (rebuild && rebuild.id === ev.runId) {
    if (rebuild.sha !== null)
      return { code: 'STALE_RUN_EVENT', message: `the merge commit ${ev.runId} was already built` };
    rebuildCreated(d, ev.sha);
    return null;
  }
  const found = findRun(d, ev.runId, 'creating');
  if (isRejection(found)) return found;
  const run: TestRun = {
    ...found,
    status: 'in_progress',
    testSha: ev.sha,
    ciStartedAt: d.at,
    ...(ev.changes ? { changes: ev.changes } : {}),
  };
  d.putRun(run);
  const alone = run.queueType === 'main' && d.config.batch && run.prNumbers.length === 1;
  const screening = run.queueType === 'bisection' ? (bisectionOfRun(d, run.id)?.screening ?? null) : null;
  const started = membersOf(d, run).map((m) => {
    const why = alone ? whyAlone(m) : screening;
    return move(d, m, 'TESTING', 'TEST_RUN_STARTED', why !== null ? { detail: why } : {}).prNumber;
  });
  emitBatchEvent(d, 'pull_request_batch.testing', started, run, 'TEST_RUN_STARTED');
  d.emit({
    kind: 'emitEvent',
    key: `${run.id}:test_run.started`,
    event: {
      ...eventPayload(d, 'test_run.started', run.prNumbers, run, null),
      ...(run.changes ? { changes: run.changes } : {}),
    },
  });
  d.emit({
    kind: 'startCi',
    key: `${run.id}:startCi`,
    runId: run.id,
    branch: run.testBranch,
    sha: ev.sha,
    prNumbers: run.prNumbers,
    requiredStatuses: d.config.requiredStatuses,
    timeoutMinutes: timeoutMinutes(d),
  });
  return null;
}

export function onTestBranchFailed(d: Draft, ev: Ev<'testBranchFailed'>): Rejection | null {
  const rebuild = d.internal.merge?.rebuild;
  if (rebuild && rebuild.id === ev.runId) {
    if (rebuild.sha !== null)
      return { code: 'STALE_RUN_EVENT', message: `the merge commit ${ev.runId} was already built` };
    rebuildFailed(d, Topology.of(d));
    return null;
  }
  const found = findRun(d, ev.runId, 'creating');
  if (isRejection(found)) return found;
  runFailed(d, found, ev.reason, ev.detail ?? null);
  return null;
}

/**
 * A run's CI result. A failure of its required statuses, or a cancellation, first spends the run's
 * retries (ci-retries.ts); failures of another kind (no required statuses, CI could not be started)
 * count at once.
 */
export function onCiResult(d: Draft, ev: Ev<'ciResult'>): Rejection | null {
  const found = findRun(d, ev.runId, 'in_progress');
  if (isRejection(found)) return found;
  if (ev.outcome === 'success') {
    countStatusResults(d, found, 'passed', ev.failedStatuses);
    runPassed(d, found);
    return null;
  }
  const statusFailure = ev.reason === undefined || ev.reason === 'TEST_RUN_REQUIRED_STATUS_FAILED';
  if (ev.outcome === 'cancelled') {
    if (retryCi(d, found, 'cancelled')) return null;
    runFailed(d, found, 'TEST_RUN_CANCELLED_BY_CI', ev.detail ?? 'CI cancelled the checks, again after a retry');
    return null;
  }
  const noted = statusFailure ? noteFailedStatuses(found, ev.failedStatuses) : found;
  if (statusFailure && failedByEvidence(d, noted, ev.detail ?? null)) return null;
  if (statusFailure && retryCi(d, noted, 'failure')) return null;
  if (statusFailure) countStatusResults(d, found, 'failed', ev.failedStatuses);
  runFailed(d, found, ev.reason ?? 'TEST_RUN_REQUIRED_STATUS_FAILED', ev.detail ?? null);
  return null;
}

/** CI started for a run's current attempt: the statuses that decide it are known from now on. */
export function onCiStarted(d: Draft, ev: Ev<'ciStarted'>): Rejection | null {
  const found = findRun(d, ev.runId, 'in_progress');
  if (isRejection(found)) return found;
  d.putRun({ ...found, requiredStatuses: [...ev.requiredStatuses] });
  return null;
}

/** Statuses of a run's current attempt reported for the first time. */
export function onCiStatusSeen(d: Draft, ev: Ev<'ciStatusSeen'>): Rejection | null {
  const found = findRun(d, ev.runId, 'in_progress');
  if (isRejection(found)) return found;
  const seen = new Set(found.statusesSeen ?? []);
  const added = ev.contexts.filter((c) => !seen.has(c));
  if (added.length > 0) d.putRun({ ...found, statusesSeen: [...seen, ...added] });
  return null;
}

export function runFailed(d: Draft, found: TestRun, reason: FailureReason, detail: string | null): void {
  const run: TestRun = { ...found, status: 'failed', finishedAt: d.at, failureReason: reason, failureDetail: detail };
  d.putRun(run);
  if (run.queueType === 'bisection') {
    bisectionFailed(d, run, reason, detail);
    return;
  }
  const members = membersOf(d, run).filter((m) => m.state === 'TESTING' || m.state === 'PENDING');
  const moved = members.map((m) => move(d, m, 'PENDING_FAILURE', reason, detail !== null ? { detail } : {}).prNumber);
  emitBatchEvent(d, 'pull_request_batch.pending_failure', moved, run, reason);
}

function runPassed(d: Draft, found: TestRun): void {
  const run: TestRun = { ...found, status: 'succeeded', finishedAt: d.at };
  d.putRun(run);
  notePassed(d, run);
  recordRunDuration(d, run);
  if (wasRetried(run)) d.internal.flakyPasses++;
  if (run.queueType === 'bisection') {
    bisectionPassed(d, run);
    return;
  }
  if (retryEvidencePassed(d, run)) return;
  const reason = wasRetried(run) ? 'TEST_RUN_PASSED_AFTER_RETRY' : 'TEST_RUN_PASSED';
  for (const m of membersOf(d, run)) {
    if (m.state === 'TESTING') move(d, m, 'TESTS_PASSED', reason, { patch: { verifiedByTestRun: run.id } });
  }
  if (d.config.canOptimisticallyMerge) vouchAhead(d, run);
}

function vouchAhead(d: Draft, run: TestRun): void {
  const bisecting = bisectingSet(d);
  const inRun = new Set(run.prs.map((p) => `${p.number}@${p.headSha}`));
  const covered = (n: number): boolean => {
    const e = d.entry(n);
    return e !== undefined && inRun.has(`${e.prNumber}@${e.headSha}`);
  };
  const own = new Set(run.prNumbers);
  for (const p of run.prs) {
    if (own.has(p.number)) continue;
    const e = d.entry(p.number);
    if (!e || e.headSha !== p.headSha || bisecting.has(e.prNumber)) continue;
    if (e.state !== 'TESTING' && e.state !== 'PENDING_FAILURE' && e.state !== 'PENDING') continue;
    // Only whole groups: in parallel mode a batch ahead may be only partly on this run's lane.
    const ownRun = d.run(e.runId);
    if (e.state !== 'PENDING' && ownRun && !membersOf(d, ownRun).every((m) => covered(m.prNumber))) continue;
    if (ownRun && isInFlight(ownRun) && ownRun.queueType === 'main') abandonRun(d, ownRun);
    move(d, e, 'TESTS_PASSED', 'SUCCESSOR_TEST_RUN_PASSED', { patch: { verifiedByTestRun: run.id } });
  }
}
