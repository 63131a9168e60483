/**
 * CI that misbehaves, one rule per block: `ciRetries`, cancelled is not failed,
 * `requiredStatusStartTimeoutMinutes`, `testingTimeoutMinutes: "auto"`, and how retries meet
 * pending-failure depth and optimistic merging.
 */
import { describe, expect, it } from 'vitest';
import { testingTimeoutInForce, validateConfigPatch, DEFAULT_QUEUE_CONFIG } from '../../src/engine/index.js';
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

describe('settings validation', () => {
  it.each([
    [{ ciRetries: 6 }, 'ciRetries must be an integer from 0 to 5, got 6'],
    [{ ciRetries: -1 }, 'ciRetries must be an integer from 0 to 5, got -1'],
    [{ requiredStatusStartTimeoutMinutes: 1.5 }, 'requiredStatusStartTimeoutMinutes must be an integer >= 0, got 1.5'],
  ])('%j → %s', (patch, message) => {
    expect(validateConfigPatch(patch)).toBe(message);
  });
});
