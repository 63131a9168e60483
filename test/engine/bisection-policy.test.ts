/**
 * What a failed batch costs (bisection.ts, the policy at its top): runs built on it restart at once,
 * it steps out of the merge order while it is bisected, and a cleared part is tested once — by its
 * bisection run when that still holds and is worth more than the runs behind it, else again behind them.
 */
import { describe, expect, it } from 'vitest';
import { queueOrder, type QueueConfig } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const MINUTE = 60_000;
const batches = (config: Partial<QueueConfig> = {}) =>
  new QueueDriver({ concurrency: 2, batch: true, batchingMinSize: 2, bisectionConcurrency: 2, ...config });

const creates = (q: QueueDriver) =>
  q
    .effectsOf('createTestBranch')
    .map((c) => `${c.runId} ${q.run(c.runId).queueType} ${c.prs.map((p) => p.number).join(',')}`);
const order = (q: QueueDriver) => queueOrder(q.snapshot).map((e) => e.prNumber);

/** PRs 1–4 in batches [1,2] (r1) and [3,4] (r2, on top of [1,2]), both building; [1,2] fails. */
function failedFront(config: Partial<QueueConfig> = {}, prs = [1, 2, 3, 4]) {
  const q = batches(config);
  for (const n of prs) q.submit(n);
  q.built('r1');
  q.built('r2');
  q.fail('r1');
  return q;
}

describe('a batch that fails', () => {
  it('restarts the runs built on it at once, without it, and is tested in parts beside them', () => {
    const q = failedFront({}, [1, 2, 3, 4, 5, 6]);
    expect(q.effectsOf('cancelCi').map((c) => c.runId)).toEqual(['r2']);
    expect([3, 4].map((n) => q.entry(n))).toMatchObject(
      [3, 4].map(() => ({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_FAILED' })),
    );
    expect(creates(q)).toEqual(['r3 bisection 1', 'r4 bisection 2', 'r5 main 3,4', 'r6 main 3,4,5,6']);
  });

  it('a part that passes with runs behind it that left it out is tested again behind them, and none of them restarts', () => {
    const q = failedFront({}, [1, 2, 3, 4, 5, 6]);
    for (const r of ['r3', 'r4', 'r5', 'r6']) q.built(r);
    q.pass('r4');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' });
    expect(q.effectsOf('cancelCi')).toEqual([]);
    expect(order(q)).toEqual([1, 3, 4, 5, 6, 2]);
    q.fail('r3');
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    q.pass('r5');
    expect(q.effect('merge')).toMatchObject({ runId: 'r5', prs: [{ number: 3 }, { number: 4 }] });
    expect(creates(q)).toEqual(['r7 main 3,4,5,6,2']);
    q.merged();
    q.pass('r6');
    q.merged();
    q.built('r7');
    q.pass('r7');
    q.merged();
    expect([1, 2, 3, 4, 5, 6].map((n) => q.state(n))).toEqual([
      'FAILED',
      'MERGED',
      'MERGED',
      'MERGED',
      'MERGED',
      'MERGED',
    ]);
    expect(
      [3, 4, 5, 6].flatMap((n) =>
        q
          .entry(n)
          .timeline.filter((t) => t.to === 'PENDING' && t.from === 'TESTING')
          .map((t) => t.reason),
      ),
    ).toEqual(['PREREQUISITE_MERGE_ITEM_FAILED', 'PREREQUISITE_MERGE_ITEM_FAILED']); // 3 and 4, when [1,2] failed; never again
  });

  it('a part whose run used more CI time than the runs behind it counts as their test; they restart on top of it', () => {
    const q = batches();
    for (const n of [1, 2]) q.submit(n);
    q.built('r1');
    q.fail('r1');
    expect(creates(q)).toEqual(['r2 bisection 1', 'r3 bisection 2']);
    q.built('r2');
    q.built('r3');
    q.tick(20 * MINUTE);
    for (const n of [3, 4]) q.submit(n);
    expect(creates(q)).toEqual(['r4 main 3,4']);
    q.built('r4');
    q.tick(5 * MINUTE);
    q.pass('r3');
    expect(q.entry(2)).toMatchObject({ state: 'TESTS_PASSED', lastReason: 'TEST_RUN_PASSED', verifiedByTestRun: 'r3' });
    expect(q.effectsOf('cancelCi').map((c) => c.runId)).toEqual(['r4']);
    expect([3, 4].map((n) => q.entry(n))).toMatchObject(
      [3, 4].map(() => ({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' })),
    );
    expect(creates(q)).toEqual(['r5 main 2,3,4']);
    // PR 1 is still under bisection: PR 2 merges past it on the run that cleared it.
    expect(q.effect('merge')).toMatchObject({
      runId: 'r3',
      testSha: 't-r3',
      expectedTargetSha: 'S0',
      prs: [{ number: 2, headSha: 'h2' }],
    });
    q.merged();
    expect(q.entry(2)).toMatchObject({ state: 'MERGED', verifiedByTestRun: 'r3' });
    expect(q.state(1)).toBe('TESTING');
  });

  it('a group behind it that was tested without it merges while it is bisected; its part that passes after that is tested again', () => {
    const q = failedFront();
    for (const r of ['r3', 'r4', 'r5']) q.built(r);
    q.pass('r5');
    expect(q.effect('merge')).toMatchObject({
      runId: 'r5',
      expectedTargetSha: 'S0',
      prs: [{ number: 3 }, { number: 4 }],
    });
    q.merged();
    q.pass('r4');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' });
    expect(q.effect('createTestBranch')).toMatchObject({ runId: 'r6', baseSha: 'm-r5', prs: [{ number: 2 }] });
    expect(q.run('r6').queueType).toBe('main');
  });

  it('a part that passes while a merge it did not include is in flight is tested again', () => {
    const q = failedFront();
    for (const r of ['r3', 'r4', 'r5']) q.built(r);
    q.pass('r5');
    const merge = q.effect('merge');
    q.tick(10 * MINUTE); // the part's run is now the older one: only the merge in flight stands in its way
    q.pass('r4');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' });
    expect(order(q)).toEqual([1, 3, 4, 2]);
    expect(creates(q)).toEqual(['r6 main 3,4,2']);
    q.merged(merge);
    expect([3, 4].map((n) => q.state(n))).toEqual(['MERGED', 'MERGED']);
    expect(q.effectsOf('cancelCi')).toEqual([]); // r6 stays valid: what merged is what it was built on
  });

  it('parallel mode: a part is tested again once a group of its lane merged past the batch, though other lanes may merge under a run', () => {
    const q = batches({ mode: 'parallel' });
    for (const n of [1, 2, 3, 4]) {
      q.submit(n);
      q.send({ kind: 'impactedTargets', prNumber: n, headSha: `h${n}`, targets: ['a'] });
    }
    q.built('r1');
    q.built('r2');
    q.fail('r1');
    expect(creates(q)).toEqual(['r3 bisection 1', 'r4 bisection 2', 'r5 main 3,4']);
    for (const r of ['r3', 'r4', 'r5']) q.built(r);
    q.pass('r5');
    q.merged();
    q.pass('r4');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' });
    expect(q.effectsOf('merge')).toEqual([]);
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'm-r5', prs: [{ number: 2 }] });
  });

  it('a group that failed without the batch ahead of it is judged on its own run, without waiting for that bisection', () => {
    const q = failedFront();
    q.built('r5');
    q.fail('r5');
    expect([3, 4].map((n) => q.entry(n))).toMatchObject(
      [3, 4].map(() => ({ state: 'PENDING', lastReason: 'BISECTION_REQUIRED' })),
    );
    expect(q.snapshot.internal.bisections).toMatchObject([{ members: [1, 2] }, { members: [3, 4] }]);
  });
});

describe('bisection_skip_redundant_tests: a failing pair', () => {
  const skip = { optimizationMode: 'bisection_skip_redundant_tests' } as const;
  const bisecting = (q: QueueDriver) =>
    (q.snapshot.internal as { bisections: { parts: { prNumbers: number[] }[] }[] }).bisections.flatMap((b) =>
      b.parts.flatMap((p) => p.prNumbers),
    );

  it('tests its first PR alone; the second waits, though the bisection budget would allow both', () => {
    const q = failedFront(skip, [1, 2, 3, 4, 5, 6]);
    expect(creates(q)).toEqual(['r3 bisection 1', 'r4 main 3,4', 'r5 main 3,4,5,6']);
    expect(bisecting(q)).toEqual([1, 2]);
  });

  it('the first passes: the second on top of its run is the pair that failed, so it fails without a run', () => {
    const q = failedFront(skip, [1, 2, 3, 4, 5, 6]);
    for (const r of ['r3', 'r4', 'r5']) q.built(r);
    q.pass('r3');
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'BISECTION_TEST_RUN_PASSED' }); // tested again behind r4, r5
    expect(q.entry(2)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_FAILED_BY_OPTIMIZATION' });
    expect(creates(q)).toEqual([]);
    expect(bisecting(q)).toEqual([]);
  });

  it('the first fails: that explains the pair, and the second goes back to the main queue untested', () => {
    const q = failedFront(skip, [1, 2, 3, 4, 5, 6]);
    for (const r of ['r3', 'r4', 'r5']) q.built(r);
    q.fail('r3');
    expect(q.entry(1)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED' });
    expect(q.entry(2)).toMatchObject({ state: 'PENDING' });
    expect(bisecting(q)).toEqual([]);
    expect(order(q)).toEqual([3, 4, 5, 6, 2]); // behind the runs that left it out, which stay valid
    expect(q.effectsOf('cancelCi')).toEqual([]);
    q.pass('r4');
    expect(creates(q)).toEqual(['r6 main 3,4,5,6,2']); // PR 2 on top of 3,4 (merging) and 5,6
    q.merged();
    q.pass('r5');
    q.merged();
    q.built('r6');
    q.pass('r6');
    q.merged();
    expect([1, 2, 3, 4, 5, 6].map((n) => q.state(n))).toEqual([
      'FAILED',
      'MERGED',
      'MERGED',
      'MERGED',
      'MERGED',
      'MERGED',
    ]);
    expect(q.entry(2).verifiedByTestRun).toBe('r6');
  });

  it('the first cancelled: the second waits no more and is tested', () => {
    const q = failedFront(skip, [1, 2, 3, 4, 5, 6]);
    q.send({ kind: 'cancel', prNumber: 1, reason: 'USER_REQUESTED' });
    expect(q.effectsOf('cancelCi').map((c) => c.runId)).toEqual(['r3']);
    expect(creates(q)).toEqual(['r6 bisection 2']);
  });

  it('the first of a batch of three is a pair: the PR after it waits, and goes back untested when the pair fails', () => {
    const q = new QueueDriver({ concurrency: 1, batch: true, batchingMinSize: 3, bisectionConcurrency: 3, ...skip });
    for (const n of [1, 2, 3]) q.submit(n);
    q.built('r1');
    q.fail('r1');
    expect(creates(q)).toEqual(['r2 bisection 1,2']);
    q.built('r2');
    q.fail('r2');
    expect(creates(q)).toEqual(['r3 bisection 1', 'r4 main 3']);
    expect(bisecting(q)).toEqual([1, 2]);
  });
});

describe('a run built on a group whose run failed', () => {
  /** PRs 1–3 alone, each on top of the ones ahead; PR 2's run fails while PR 1's still runs. */
  function failedMiddle(config: Partial<QueueConfig> = {}) {
    const q = new QueueDriver({ concurrency: 3, ...config });
    for (const n of [1, 2, 3]) q.submit(n);
    for (const r of ['r1', 'r2', 'r3']) q.built(r);
    q.fail('r2');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING_FAILURE' }); // waits for PR 1
    return q;
  }

  it('restarts at once without it when nothing can vouch for it (optimistic merging off, pending failure depth 0)', () => {
    const q = failedMiddle();
    expect(q.effectsOf('cancelCi').map((c) => c.runId)).toEqual(['r3']);
    expect(q.entry(3)).toMatchObject({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_FAILED' });
    expect(creates(q)).toEqual(['r4 main 1,3']);
  });

  it.each([
    ['optimistic merging', { canOptimisticallyMerge: true }],
    ['a pending failure depth', { pendingFailureDepth: 1 }],
  ])('keeps running with %s: its pass may still vouch for it or its result is waited for', (_why, config) => {
    const q = failedMiddle(config);
    expect(q.effectsOf('cancelCi')).toEqual([]);
    expect(q.state(3)).toBe('TESTING');
  });
});

describe('a group whose run failed', () => {
  it('is judged on that run: an urgent PR going ahead of it does not make it test again', () => {
    const q = new QueueDriver({ concurrency: 2 });
    q.submit(1, { priority: 'low' });
    q.submit(2);
    q.submit(3);
    for (const r of ['r1', 'r2']) q.built(r);
    q.fail('r2');
    expect(q.entry(2)).toMatchObject({ state: 'PENDING_FAILURE' }); // waits for PR 1, which its run included
    q.built('r3');
    q.submit(4, { priority: 'urgent' }); // pre-empts PR 1, the lowest priority in flight, and goes ahead of it
    expect(order(q)).toEqual([4, 1, 2, 3]);
    expect(q.entry(1)).toMatchObject({ state: 'PENDING', lastReason: 'SKIP_THE_LINE_INTERRUPTED' });
    expect(q.entry(2)).toMatchObject({ state: 'PENDING_FAILURE', runId: 'r2' });
    expect(creates(q)).toEqual(['r4 main 4', 'r5 main 4,1']);
    q.built('r4');
    q.pass('r4');
    q.merged();
    q.built('r5');
    q.pass('r5');
    q.merged();
    expect(q.entry(2)).toMatchObject({ state: 'FAILED', lastReason: 'TEST_RUN_REQUIRED_STATUS_FAILED', runId: 'r2' });
  });
});
