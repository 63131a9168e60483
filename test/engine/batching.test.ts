/**
 * Batching and bisection (contract §6.3), batch webhooks (§8.2).
 */
import { describe, expect, it } from 'vitest';
import { QueueDriver } from './queue-driver.js';

const batched = (config = {}) =>
  new QueueDriver({ batch: true, batchingMinSize: 3, batchingMaxWaitTimeMinutes: 5, concurrency: 2, ...config });

describe('batching', () => {
  it('starts a batch once the target size is reached, capped at it', () => {
    const q = batched();
    q.submit(1);
    q.submit(2);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.submit(3);
    expect(q.effect('createTestBranch')).toMatchObject({
      branch: 'greenline-merge/pr-1-2-3/r1',
      prs: [1, 2, 3].map((n) => ({ number: n, headSha: `h${n}` })),
    });
    q.submit(4);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
  });

  it('starts a smaller batch after the maximum wait since its oldest member', () => {
    const q = batched();
    q.submit(1);
    const admitted = q.now;
    q.tick(60_000);
    q.submit(2);
    const wake = q.effectsOf('scheduleWakeup');
    expect(wake.map((w) => w.at)).toEqual([]); // already asked for at the first submission
    q.send({ kind: 'tick', at: admitted + 5 * 60_000 - 1 });
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.send({ kind: 'tick', at: admitted + 5 * 60_000 });
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1, 2]);
  });

  it('asks for a wakeup at the batch deadline', () => {
    const q = batched();
    q.submit(1);
    expect(q.effect('scheduleWakeup').at).toBe(q.now + 5 * 60_000);
  });

  it('noBatch PRs are tested alone and keep their position', () => {
    const q = batched();
    q.submit(1);
    q.submit(2, { noBatch: true });
    expect(q.effect('createTestBranch')).toMatchObject({
      branch: 'greenline-merge/pr-2/r1',
      prs: [
        { number: 1, headSha: 'h1' },
        { number: 2, headSha: 'h2' },
      ],
    });
  });

  it('a draining queue does not wait for a batch to fill', () => {
    const q = batched();
    q.submit(1);
    q.send({ kind: 'setState', state: 'DRAINING' });
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1]);
  });

  it('emits batch events when a batch starts testing and merges', () => {
    const q = batched();
    for (const n of [1, 2, 3]) q.submit(n);
    q.built('r1');
    expect(q.eventTypes()).toEqual([
      'pull_request.testing:1',
      'pull_request.testing:2',
      'pull_request.testing:3',
      'pull_request_batch.testing:1,2,3',
      'test_run.started:1,2,3',
    ]);
    expect(q.events().at(-2)).toMatchObject({
      prNumbersInBatch: [1, 2, 3],
      batched: true,
      isBisection: false,
      testBranch: 'greenline-merge/pr-1-2-3/r1',
    });
    q.pass('r1');
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([1, 2, 3]);
    q.merged();
    expect(q.eventTypes()).toEqual([
      'pull_request.merged:1',
      'pull_request.merged:2',
      'pull_request.merged:3',
      'pull_request_batch.merged:1,2,3',
    ]);
  });
});

describe('bisection', () => {
  function failedBatch(config = {}) {
    const q = batched({ bisectionConcurrency: 2, ...config });
    for (const n of [1, 2, 3]) q.submit(n);
    q.built('r1');
    q.fail('r1');
    return q;
  }

  it('a failed batch is split in halves tested on the bisection budget', () => {
    const q = failedBatch();
    expect([1, 2, 3].map((n) => q.entry(n).lastReason)).toEqual([
      'BISECTION_REQUIRED',
      'BISECTION_REQUIRED',
      'BISECTION_REQUIRED',
    ]);
    expect(q.eventTypes()).toContain('pull_request_batch.pending_failure:1,2,3');
    expect(q.eventTypes()).toContain('pull_request_batch.queued:1,2,3');
    const creates = q.effectsOf('createTestBranch');
    expect(creates.map((c) => c.prs.map((p) => p.number))).toEqual([[1, 2], [3]]);
    expect(creates.map((c) => q.run(c.runId).queueType)).toEqual(['bisection', 'bisection']);
    q.built('r2');
    expect(q.events()[0]).toMatchObject({ type: 'pull_request.testing', isBisection: true });
  });

  it('finds the culprit; a cleared part whose run still holds merges on that run, without another', () => {
    const q = failedBatch();
    q.built('r2');
    q.built('r3');
    q.pass('r2');
    expect([1, 2].map((n) => q.entry(n))).toMatchObject(
      [1, 2].map(() => ({ state: 'TESTS_PASSED', lastReason: 'TEST_RUN_PASSED', verifiedByTestRun: 'r2' })),
    );
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    expect(q.effect('merge')).toMatchObject({
      runId: 'r2',
      testSha: 't-r2',
      expectedTargetSha: 'S0',
      prs: [{ number: 1 }, { number: 2 }],
    });
    q.merged();
    q.fail('r3');
    expect(q.entry(3)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    expect([1, 2, 3].map((n) => q.state(n))).toEqual(['MERGED', 'MERGED', 'FAILED']);
    expect([1, 2].map((n) => q.entry(n).verifiedByTestRun)).toEqual(['r2', 'r2']);
  });

  it('recurses into a failing half', () => {
    const q = failedBatch();
    q.built('r2');
    q.fail('r2');
    expect(q.effectsOf('createTestBranch').map((c) => c.prs.map((p) => p.number))).toEqual([[1]]);
    q.built('r3');
    // PR 3 cleared while the first half is split further: its run tested it on S0 without the batch
    // ahead, which is known to fail, so it merges past it.
    q.pass('r3');
    expect(q.entry(3)).toMatchObject({ state: 'TESTS_PASSED', verifiedByTestRun: 'r3' });
    expect(q.effect('merge')).toMatchObject({ runId: 'r3', prs: [{ number: 3 }] });
    expect([1, 2].map((n) => q.state(n))).toEqual(['PENDING', 'PENDING']); // under bisection
    expect(q.effect('createTestBranch')).toMatchObject({ prs: [{ number: 2 }] }); // the freed bisection slot
  });

  it('bisection_skip_redundant_tests: a part that would repeat a failed run is not run again', () => {
    const q = failedBatch({ bisectionConcurrency: 1, optimizationMode: 'bisection_skip_redundant_tests' });
    expect(q.effectsOf('createTestBranch').map((c) => c.prs.map((p) => p.number))).toEqual([[1, 2]]);
    q.built('r2');
    q.pass('r2');
    // [3] on top of the cleared [1, 2] is the batch that already failed: PR 3 fails without a run.
    expect(q.entry(3)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_FAILED_BY_OPTIMIZATION' });
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    expect(q.effect('merge')).toMatchObject({ runId: 'r2', prs: [{ number: 1 }, { number: 2 }] });
  });

  it('bisection_skip_redundant_tests: recognises the failed content after what it was built on merged', () => {
    const q = batched({
      batchingMinSize: 2,
      bisectionConcurrency: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
    });
    for (const n of [1, 2, 3, 4]) q.submit(n);
    q.built('r1');
    q.built('r2');
    q.pass('r1');
    q.merged();
    q.fail('r2'); // [3, 4] on top of [1, 2], which has merged since
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'm-r1', prs: [{ number: 3 }] });
    q.built('r3');
    q.pass('r3');
    // [4] on top of [3] on the merged [1, 2] is the tree r2 tested: PR 4 fails without a run.
    expect(q.entry(4)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_FAILED_BY_OPTIMIZATION' });
    expect(q.effectsOf('createTestBranch')).toEqual([]);
  });

  it('without the optimization the same content is tested again', () => {
    const q = failedBatch({ bisectionConcurrency: 1 });
    q.built('r2');
    q.pass('r2');
    const creates = q.effectsOf('createTestBranch');
    expect(creates.map((c) => [q.run(c.runId).queueType, c.prs.map((p) => p.number)])).toEqual([
      ['bisection', [1, 2, 3]],
    ]);
  });

  it('a timed-out batch is not reused as a known failure', () => {
    const q = batched({
      bisectionConcurrency: 1,
      optimizationMode: 'bisection_skip_redundant_tests',
      testingTimeoutMinutes: 10,
    });
    for (const n of [1, 2, 3]) q.submit(n);
    q.built('r1');
    q.send({ kind: 'tick', at: q.now + 10 * 60_000 });
    q.built('r2');
    q.pass('r2');
    expect(q.state(3)).toBe('PENDING');
    expect(q.effectsOf('createTestBranch').some((c) => q.run(c.runId).queueType === 'bisection')).toBe(true);
  });

  it('emits pull_request_batch.submitted when a batch forms, not again when the same batch is tested again', () => {
    const q = batched();
    for (const n of [1, 2]) q.submit(n);
    expect(q.eventTypes().filter((t) => t.startsWith('pull_request_batch'))).toEqual([]);
    q.submit(3);
    expect(q.eventTypes()).toContain('pull_request_batch.submitted:1,2,3');
    expect(q.events().find((e) => e.type === 'pull_request_batch.submitted')).toMatchObject({
      prNumbers: [1, 2, 3],
      prNumbersInBatch: [1, 2, 3],
      reason: 'API_REQUESTED',
      batched: true,
      isBisection: false,
      testBranch: 'greenline-merge/pr-1-2-3/r1',
      testBranchSha: null,
    });
    q.built('r1');
    q.send({ kind: 'restart', prNumber: 2, reason: 'TESTS_RESTARTED_BY_USER' });
    expect(q.eventTypes()).toContain('pull_request_batch.queued:1,2,3');
    expect(q.eventTypes().filter((t) => t.startsWith('pull_request_batch.submitted'))).toEqual([]);
    expect(q.runOf(1).id).toBe('r2');
  });

  it('emits pull_request_batch.canceled for a PR of a batch under test that is cancelled', () => {
    const q = batched();
    for (const n of [1, 2, 3]) q.submit(n);
    q.built('r1');
    q.send({ kind: 'cancel', prNumber: 2, reason: 'USER_REQUESTED' });
    const types = q.eventTypes();
    expect(types.slice(0, 2)).toEqual(['pull_request.canceled:2', 'pull_request_batch.canceled:2']);
    expect(q.events()[1]).toMatchObject({
      prNumbers: [2],
      prNumbersInBatch: [1, 2, 3],
      reason: 'USER_REQUESTED',
      batched: true,
      isBisection: false,
      testBranch: 'greenline-merge/pr-1-2-3/r1',
      testBranchSha: 't-r1',
    });
    expect(types).toContain('pull_request_batch.queued:1,3');
  });

  it('emits no batch event when a PR tested alone is cancelled', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1);
    q.built('r1');
    q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
    expect(q.eventTypes()).toEqual(['pull_request.canceled:1']);
  });
});
