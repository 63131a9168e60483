/**
 * CI that misbehaves, one rule per block: `ciRetries`, cancelled is not failed,
 * `requiredStatusStartTimeoutMinutes`, `testingTimeoutMinutes: "auto"`, and how retries meet
 * pending-failure depth and optimistic merging.
 */
import { describe, expect, it } from 'vitest';
import {
  testingTimeoutInForce,
  validateConfigPatch,
  DEFAULT_QUEUE_CONFIG,
  queueOutlook,
  queueStatistics,
} from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const MIN = 60_000;

describe('ciRetries: a failed run is tested again on the same commit before the failure counts', () => {
  it('off (0): the first failure counts, as before', () => {
    const q = new QueueDriver();
    const r = q.startTesting(1);
    q.fail(r);
    expect(q.effectsOf('retryCi')).toEqual([]);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  });

  it('1: a failure asks for a retry of the same test commit; the PR stays TESTING; a pass is flaky', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    const r = q.startTesting(1);
    q.send({ kind: 'ciStarted', runId: r, requiredStatuses: ['ci'] });
    q.send({ kind: 'ciStatusSeen', runId: r, contexts: ['ci'] });
    q.fail(r);
    expect(q.effect('retryCi')).toMatchObject({
      runId: r,
      sha: `t-${r}`,
      attempt: 1,
      requiredStatuses: ['ci'],
      key: `${r}:retryCi:1`,
    });
    expect(q.events()).toMatchObject([
      { type: 'test_run.retry_requested', runId: r, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', prNumbers: [1] },
    ]);
    expect(q.state(1)).toBe('TESTING');
    expect(q.run(r)).toMatchObject({ status: 'in_progress', failedRetries: 1, statusesSeen: [], ciStartedAt: q.now });
    q.pass(r);
    expect(q.entry(1)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'TEST_RUN_PASSED_AFTER_RETRY' });
    q.merged();
    expect(q.state(1)).toBe('MERGED');
  });

  it('the retries are spent before the failure counts', () => {
    const q = new QueueDriver({ ciRetries: 2 });
    const r = q.startTesting(1);
    q.fail(r);
    q.fail(r);
    expect(q.effect('retryCi').attempt).toBe(2);
    q.fail(r);
    expect(q.effectsOf('retryCi')).toEqual([]);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  });

  it('failures that are not a status result (no required statuses) are not retried', () => {
    const q = new QueueDriver({ ciRetries: 3 });
    const r = q.startTesting(1);
    q.send({ kind: 'ciResult', runId: r, outcome: 'failure', reason: 'START_TEST_RUN_NO_REQUIRED_STATUSES' });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'START_TEST_RUN_NO_REQUIRED_STATUSES' });
  });

  it('a retried attempt gets the full testing timeout from its own start', () => {
    const q = new QueueDriver({ ciRetries: 1, testingTimeoutMinutes: 30 });
    const r = q.startTesting(1);
    q.tick(20 * MIN);
    q.fail(r);
    const retriedAt = q.now;
    q.send({ kind: 'tick', at: retriedAt + 29 * MIN });
    expect(q.state(1)).toBe('TESTING');
    q.send({ kind: 'tick', at: retriedAt + 30 * MIN });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_TIMEOUT' });
  });
});

describe('cancelled is not failed', () => {
  it('with ciRetries 0 a cancelled run is tested once more; a pass merges', () => {
    const q = new QueueDriver();
    const r = q.startTesting(1);
    q.send({ kind: 'ciResult', runId: r, outcome: 'cancelled' });
    expect(q.effect('retryCi')).toMatchObject({ runId: r, attempt: 1 });
    expect(q.events()).toMatchObject([{ type: 'test_run.retry_requested', reason: 'TEST_RUN_CANCELLED_BY_CI' }]);
    expect(q.state(1)).toBe('TESTING');
    q.pass(r);
    expect(q.entry(1)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'TEST_RUN_PASSED_AFTER_RETRY' });
  });

  it('cancelled again: the PR fails with TEST_RUN_CANCELLED_BY_CI', () => {
    const q = new QueueDriver();
    const r = q.startTesting(1);
    q.send({ kind: 'ciResult', runId: r, outcome: 'cancelled' });
    q.send({ kind: 'ciResult', runId: r, outcome: 'cancelled', detail: 'required status "ci" reported cancelled' });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_CANCELLED_BY_CI' });
    expect(q.last(1).detail).toBe('required status "ci" reported cancelled');
  });

  it('failures and cancellations are counted apart: a retried failure still gets its cancellation retry', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    const r = q.startTesting(1);
    q.fail(r);
    q.send({ kind: 'ciResult', runId: r, outcome: 'cancelled' });
    expect(q.effect('retryCi').attempt).toBe(2);
    q.fail(r);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  });
});

describe('requiredStatusStartTimeoutMinutes', () => {
  it('a required status never reported fails the run, naming it, after the start timeout', () => {
    const q = new QueueDriver({ requiredStatusStartTimeoutMinutes: 10 });
    const r = q.startTesting(1);
    const started = q.now;
    q.send({ kind: 'ciStarted', runId: r, requiredStatuses: ['build', 'deploy-preview'] });
    expect(q.effectsOf('scheduleWakeup').map((e) => e.at)).toEqual([started + 10 * MIN]);
    q.send({ kind: 'ciStatusSeen', runId: r, contexts: ['build'] });
    q.send({ kind: 'tick', at: started + 10 * MIN - 1 });
    expect(q.state(1)).toBe('TESTING');
    q.send({ kind: 'tick', at: started + 10 * MIN });
    expect(q.effect('cancelCi').runId).toBe(r);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'REQUIRED_STATUS_NEVER_STARTED' });
    expect(q.last(1).detail).toBe('required status "deploy-preview" not reported within 10 minutes');
  });

  it('a status reported pending counts as started: only the testing timeout applies', () => {
    const q = new QueueDriver({ requiredStatusStartTimeoutMinutes: 10, testingTimeoutMinutes: 60 });
    const r = q.startTesting(1);
    q.send({ kind: 'ciStarted', runId: r, requiredStatuses: ['build'] });
    q.send({ kind: 'ciStatusSeen', runId: r, contexts: ['build'] });
    q.send({ kind: 'tick', at: q.now + 30 * MIN });
    expect(q.state(1)).toBe('TESTING');
  });

  it('off (0): nothing happens before the testing timeout', () => {
    const q = new QueueDriver({ testingTimeoutMinutes: 60 });
    const r = q.startTesting(1);
    q.send({ kind: 'ciStarted', runId: r, requiredStatuses: ['build'] });
    q.send({ kind: 'tick', at: q.now + 59 * MIN });
    expect(q.state(1)).toBe('TESTING');
  });

  it('a status event for a finished run is stale', () => {
    const q = new QueueDriver();
    const r = q.startTesting(1);
    q.pass(r);
    expect(q.reject({ kind: 'ciStatusSeen', runId: r, contexts: ['x'] }).code).toBe('STALE_RUN_EVENT');
  });
});

describe('testingTimeoutMinutes "auto"', () => {
  const cfg = { ...DEFAULT_QUEUE_CONFIG, testingTimeoutMinutes: 120, testingTimeoutAuto: true };

  it('uses the numeric value until 10 successful runs are known', () => {
    expect(testingTimeoutInForce(cfg, Array(9).fill(MIN))).toBe(120);
  });

  it('is twice the p95 of the runs known, rounded up to a minute', () => {
    const durations = [...Array(19).fill(5 * MIN), 20 * MIN];
    expect(testingTimeoutInForce(cfg, durations)).toBe(10); // p95 = 5 minutes → 10
    expect(testingTimeoutInForce(cfg, [...Array(9).fill(8 * MIN), 8.2 * MIN])).toBe(17);
  });

  it('never under 10 minutes', () => {
    expect(testingTimeoutInForce(cfg, Array(20).fill(MIN))).toBe(10);
  });

  it('off: the numeric value', () => {
    expect(testingTimeoutInForce({ ...cfg, testingTimeoutAuto: false }, Array(20).fill(MIN))).toBe(120);
  });

  it('the engine learns from successful runs and times runs out by it', () => {
    const q = new QueueDriver({ testingTimeoutMinutes: 300, testingTimeoutAuto: true });
    for (let n = 1; n <= 10; n++) {
      const r = q.startTesting(n);
      q.tick(6 * MIN);
      q.pass(r);
      q.merged();
    }
    expect(q.snapshot.internal.runDurations).toHaveLength(10);
    expect(testingTimeoutInForce(q.snapshot.config, q.snapshot.internal.runDurations as number[])).toBe(13);
    const r = q.startTesting(11);
    expect(q.effect('startCi').timeoutMinutes).toBe(13);
    q.send({ kind: 'tick', at: q.run(r).createdAt + 13 * MIN });
    expect(q.entry(11)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_TIMEOUT' });
  });
});

describe('retries with pending-failure depth and optimistic merging', () => {
  it('a run being retried is not PENDING_FAILURE: the runs behind keep it in their base', () => {
    const q = new QueueDriver({ ciRetries: 1, concurrency: 2, pendingFailureDepth: 1 });
    q.submit(1);
    q.submit(2);
    const run1 = q.entry(1).runId!;
    const run2 = q.entry(2).runId!;
    q.built(run1);
    q.built(run2);
    q.fail(run1);
    expect(q.state(1)).toBe('TESTING');
    expect(q.run(run2).status).toBe('in_progress');
    expect(q.run(run2).dependentPrs).toEqual([1]);
    q.fail(run1);
    expect(q.state(1)).toBe('PENDING_FAILURE');
  });

  it('under optimistic merging a passing successor vouches for a run being retried, and the retry stops', () => {
    const q = new QueueDriver({ ciRetries: 1, concurrency: 2, canOptimisticallyMerge: true });
    q.submit(1);
    q.submit(2);
    const run1 = q.entry(1).runId!;
    const run2 = q.entry(2).runId!;
    q.built(run1);
    q.built(run2);
    q.fail(run1);
    q.pass(run2);
    expect(q.entry(1)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'SUCCESSOR_TEST_RUN_PASSED' });
    expect(q.run(run1).status).toBe('cancelled');
  });
});

describe('retries decided by the runs behind (ciRetries, optimistic merging off)', () => {
  /** PRs 1..n tested at once, each run on top of the ones ahead; `age` of CI time passes. */
  function chain(n: number, config: Record<string, unknown> = {}, age = 30 * MIN) {
    const q = new QueueDriver({ ciRetries: 1, concurrency: n, ...config });
    for (let k = 1; k <= n; k++) q.submit(k);
    const runs = Array.from({ length: n }, (_, k) => q.entry(k + 1).runId!);
    for (const r of runs) q.built(r);
    q.tick(age);
    return { q, runs };
  }

  it('a run behind that includes the failed group and passes vouches for it; its retry stops at once', () => {
    const { q, runs } = chain(2);
    q.fail(runs[0]);
    expect(q.effect('retryCi').runId).toBe(runs[0]);
    expect(q.state(1)).toBe('TESTING');
    q.pass(runs[1]);
    expect(q.entry(1)).toMatchObject({
      state: 'TESTS_PASSED',
      lastReason: 'SUCCESSOR_TEST_RUN_PASSED',
      verifiedByTestRun: runs[1],
    });
    expect(q.effect('cancelCi').runId).toBe(runs[0]);
    expect(q.effect('merge')).toMatchObject({ runId: runs[1], prs: [{ number: 1 }, { number: 2 }] });
  });

  it('a run behind that already passed vouches at once: no retry', () => {
    const { q, runs } = chain(2);
    q.pass(runs[1]);
    q.fail(runs[0]);
    expect(q.effectsOf('retryCi')).toEqual([]);
    expect(q.entry(1)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'SUCCESSOR_TEST_RUN_PASSED' });
    expect(q.effect('merge').runId).toBe(runs[1]);
  });

  it('a run behind that fails too steps the group out: the runs behind restart without it, its retry decides', () => {
    const { q, runs } = chain(3);
    q.fail(runs[0]);
    q.fail(runs[1]);
    // The failure of the run behind is explained by #1: it is not retried.
    expect(q.effectsOf('retryCi')).toEqual([]);
    expect(q.entry(1)).toMatchObject({ state: 'PENDING_FAILURE', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    expect(q.last(1).detail).toBe(
      'the test run of #1 failed, and so did a run that includes it (the test run of #2): the runs behind it are tested without it until its retry decides',
    );
    expect(q.run(runs[0]).status).toBe('in_progress');
    expect(q.run(runs[1]).status).toBe('failed');
    expect(q.run(runs[2]).status).toBe('cancelled');
    expect(q.entry(2).lastReason).toBe('PREREQUISITE_MERGE_ITEM_FAILED');
    expect(q.runOf(2).dependentPrs).toEqual([]);
    expect(q.runOf(3).dependentPrs).toEqual([2]);
    // What a client reads while it stands out: its retry decides.
    expect(queueOutlook(q.snapshot, queueStatistics([]), q.now).get(1)?.waitingOn).toEqual({
      code: 'FAILING',
      message:
        'Its test run failed and is being retried; the runs behind it are tested without it until the retry tells whether the failure is its own.',
    });
    // A bad PR fails twice.
    q.fail(runs[0]);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
  });

  it('a stepped-out group whose retry passes re-enters the queue behind the runs that left it out', () => {
    const { q, runs } = chain(4);
    q.fail(runs[0]);
    q.fail(runs[1]);
    const [r2, r3, r4] = [2, 3, 4].map((n) => q.entry(n).runId!);
    for (const r of [r2, r3, r4]) q.built(r);
    q.tick(20 * MIN); // the three runs behind have used more CI time (60 min) than #1's two attempts (50)
    q.pass(runs[0]);
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' });
    expect([r2, r3, r4].map((r) => q.run(r).status)).toEqual(['in_progress', 'in_progress', 'in_progress']);
    // Tested again behind them, in the slot its retry no longer takes.
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([2, 3, 4, 1]);
    for (const r of [r2, r3, r4]) {
      q.pass(r);
      q.merged();
    }
    expect([2, 3, 4].map((n) => q.state(n))).toEqual(['MERGED', 'MERGED', 'MERGED']);
    expect(q.state(1)).toBe('PENDING');
  });

  it('a stepped-out group whose retry passes and costs less to keep than the runs behind is tested by it', () => {
    const { q, runs } = chain(2);
    q.fail(runs[0]);
    q.fail(runs[1]);
    const r2 = q.entry(2).runId!;
    q.built(r2);
    q.pass(runs[0]);
    expect(q.entry(1)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'TEST_RUN_PASSED_AFTER_RETRY' });
    expect(q.run(r2).status).toBe('cancelled');
    expect(q.runOf(2).dependentPrs).toEqual([1]);
  });

  it('no run behind includes it: it stays TESTING; its retry takes no main slot, so the next PR is tested on top of it', () => {
    const q = new QueueDriver({ ciRetries: 1, concurrency: 1 });
    const r1 = q.startTesting(1);
    q.submit(2);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.tick(30 * MIN);
    q.fail(r1);
    expect(q.effect('retryCi').runId).toBe(r1);
    expect(q.state(1)).toBe('TESTING');
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
  });

  it('the first run behind that includes it answers too late: it steps out at once', () => {
    const q = new QueueDriver({ ciRetries: 1, concurrency: 2 });
    const r1 = q.startTesting(1);
    q.tick(25 * MIN);
    const r2 = q.startTesting(2);
    q.tick(5 * MIN);
    q.fail(r1);
    expect(q.state(1)).toBe('PENDING_FAILURE');
    expect(q.last(1).detail).toContain('answers in about 25 minutes');
    expect(q.run(r2).status).toBe('cancelled');
    expect(q.runOf(2).dependentPrs).toEqual([]);
  });

  it('with ciRetries 0 nothing of this applies: the first failure counts and the runs behind restart', () => {
    const { q, runs } = chain(2, { ciRetries: 0 });
    q.fail(runs[0]);
    expect(q.effectsOf('retryCi')).toEqual([]);
    expect(q.entry(1)).toMatchObject({ state: 'FAILED' });
    expect(q.run(runs[1]).status).toBe('cancelled');
  });

  it('under anti-flake the group stays TESTING and in the base of the runs behind while it is retried', () => {
    const { q, runs } = chain(2, { canOptimisticallyMerge: true, pendingFailureDepth: 1 }, 1);
    q.tick(25 * MIN);
    q.fail(runs[0]);
    q.fail(runs[1]);
    expect(q.state(1)).toBe('TESTING');
    expect(q.run(runs[0]).failedRetries).toBe(1);
  });
});

describe('settings validation', () => {
  it.each([
    [{ ciRetries: 6 }, 'ciRetries must be an integer from 0 to 5, got 6'],
    [{ ciRetries: -1 }, 'ciRetries must be an integer from 0 to 5, got -1'],
    [{ requiredStatusStartTimeoutMinutes: 1.5 }, 'requiredStatusStartTimeoutMinutes must be an integer >= 0, got 1.5'],
  ])('%j → %s', (patch, message) => {
    expect(validateConfigPatch(patch)).toBe(message);
  });
});
