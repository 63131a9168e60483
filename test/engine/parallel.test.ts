/**
 * Parallel mode (contract §6.7): the impacted-target graph, lanes, dependentPrs, and merges of one
 * lane under the runs of another (rebuilt on the moved target, merging.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ImpactedTargets } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

function parallel(targets: Record<number, ImpactedTargets>, config = {}): QueueDriver {
  const q = new QueueDriver({ mode: 'parallel', concurrency: 10, ...config });
  for (const [n, t] of Object.entries(targets)) {
    q.submit(Number(n));
    q.send({ kind: 'impactedTargets', prNumber: Number(n), headSha: `h${n}`, targets: t });
  }
  return q;
}

const deps = (q: QueueDriver, n: number) => q.runOf(n).dependentPrs;

describe('the impacted-target graph', () => {
  it('A[frontend], B[backend], C[frontend,backend], D[docs]: C tests on A and B; A, B, D alone', () => {
    const q = parallel({ 1: ['frontend'], 2: ['backend'], 3: ['frontend', 'backend'], 4: ['docs'] });
    expect([1, 2, 3, 4].map((n) => deps(q, n))).toEqual([[], [], [1, 2], []]);
    expect(q.runOf(3).prs.map((p) => p.number)).toEqual([1, 2, 3]);
  });

  it('dependencies are transitive', () => {
    const q = parallel({ 1: ['a'], 2: ['a', 'b'], 3: ['b'] });
    expect(deps(q, 3)).toEqual([1, 2]);
  });

  it('ALL depends on everything ahead and everything after depends on it', () => {
    const q = parallel({ 1: ['a'], 2: ['b'], 3: 'ALL', 4: ['c'] });
    expect([deps(q, 3), deps(q, 4)]).toEqual([
      [1, 2],
      [1, 2, 3],
    ]);
  });

  it('an empty list overlaps nothing, not even ALL', () => {
    const q = parallel({ 1: 'ALL', 2: [], 3: ['a'] });
    expect([deps(q, 2), deps(q, 3)]).toEqual([[], [1]]);
  });

  it('a PR is not admitted until targets for its current head exist; a new upload replaces them', () => {
    const q = new QueueDriver({ mode: 'parallel' });
    q.submit(1);
    expect(q.state(1)).toBe('NOT_READY');
    q.send({ kind: 'impactedTargets', prNumber: 1, headSha: 'h1', targets: ['a'] });
    q.send({ kind: 'impactedTargets', prNumber: 1, headSha: 'h1', targets: ['b'] });
    expect(q.entry(1).impactedTargets).toEqual(['b']);
  });
});

describe('lanes', () => {
  it('a failure in one lane does not touch another', () => {
    const q = parallel({ 1: ['a'], 2: ['b'], 3: ['a'] });
    for (const r of ['r1', 'r2', 'r3']) q.built(r);
    q.fail('r1');
    expect(q.state(1)).toBe('FAILED');
    expect(q.entry(3)).toMatchObject({ state: 'PENDING', lastReason: 'PREREQUISITE_MERGE_ITEM_FAILED' });
    expect(q.entry(2)).toMatchObject({ state: 'TESTING', runId: 'r2' });
  });

  it('lanes merge independently: the second lane is rebuilt on the moved target, then merged', () => {
    const q = parallel({ 1: ['a'], 2: ['b'] });
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    const first = q.effect('merge');
    expect(first).toMatchObject({ runId: 'r2', expectedTargetSha: 'S0', testSha: 't-r2' });
    q.pass('r1'); // one merge at a time
    expect(q.effectsOf('merge')).toEqual([]);
    q.merged(first);
    // PR 1's test commit sits on S0, but the target is now m-r2: rebuild PR 1 on it first.
    const rebuild = q.effect('createTestBranch');
    expect(rebuild).toMatchObject({ baseSha: 'm-r2', prs: [{ number: 1, headSha: 'h1' }] });
    expect(q.effectsOf('merge')).toEqual([]);
    q.send({ kind: 'testBranchCreated', runId: rebuild.runId, sha: 'rebuilt' });
    expect(q.effect('merge')).toMatchObject({
      runId: 'r1',
      expectedTargetSha: 'm-r2',
      testSha: 'rebuilt',
      prs: [{ number: 1, headSha: 'h1' }],
    });
    q.send({ kind: 'merged', runId: 'r1', prNumbers: [1], newTargetSha: 'm2' });
    expect(q.state(1)).toBe('MERGED');
    expect(
      q
        .effectsOf('deleteTestBranch')
        .map((e) => e.runId)
        .sort(),
    ).toEqual(['r1', rebuild.runId].sort());
  });

  it('a conflict while rebuilding retests the group on the new target', () => {
    const q = parallel({ 1: ['a'], 2: ['b'] });
    q.built('r1');
    q.built('r2');
    q.pass('r2');
    const first = q.effect('merge');
    q.pass('r1');
    q.merged(first);
    const rebuild = q.effect('createTestBranch');
    q.send({ kind: 'testBranchFailed', runId: rebuild.runId, reason: 'START_TEST_RUN_MERGE_CONFLICT' });
    expect(q.entry(1)).toMatchObject({ state: 'PENDING' });
    expect(q.effect('createTestBranch')).toMatchObject({ baseSha: 'm-r2', prs: [{ number: 1, headSha: 'h1' }] });
  });

  it('a merge in the same lane needs no rebuild', () => {
    const q = parallel({ 1: ['a'], 2: ['a'] });
    q.built('r1');
    q.built('r2');
    q.pass('r1');
    const first = q.effect('merge');
    q.pass('r2');
    q.merged(first);
    expect(q.effect('merge')).toMatchObject({
      runId: 'r2',
      expectedTargetSha: 'm-r1',
      testSha: 't-r2',
      prs: [{ number: 2, headSha: 'h2' }],
    });
  });

  it('batches only form within a lane', () => {
    const q = new QueueDriver({ mode: 'parallel', batch: true, batchingMinSize: 2 });
    for (const [n, t] of [
      [1, ['a']],
      [2, ['b']],
      [3, ['a']],
    ] as const) {
      q.submit(n);
      q.send({ kind: 'impactedTargets', prNumber: n, headSha: `h${n}`, targets: [...t] });
    }
    expect(q.run(q.entry(1).runId!).prNumbers).toEqual([1, 3]);
    expect(q.entry(2).runId).toBeNull();
  });
});

describe('the slots shared among lanes', () => {
  const aheadOfB = { 1: ['a'], 2: ['a'], 3: ['a'], 4: ['a'], 5: ['a'], 6: ['a'] };

  it('a freed slot goes to the lane below its share, not to the lane leading the order', () => {
    const q = parallel({ ...aheadOfB, 7: ['b'], 8: ['b'] }, { concurrency: 4 });
    expect([1, 2, 3, 4].map((n) => q.runOf(n).id)).toEqual(['r1', 'r2', 'r3', 'r4']);
    q.built('r1');
    q.pass('r1');
    q.built('r2');
    q.pass('r2');
    // Two lanes, 4 slots: 2 each. Lane a still has r3 and r4 in flight.
    expect([5, 6, 7, 8].map((n) => q.entry(n).runId !== null)).toEqual([false, false, true, true]);
  });

  it('what a lane leaves of its share goes to the others', () => {
    const q = parallel({ ...aheadOfB, 7: ['b'] }, { concurrency: 4 });
    q.built('r1');
    q.pass('r1');
    q.built('r2');
    q.pass('r2');
    expect([5, 6, 7].map((n) => q.entry(n).runId !== null)).toEqual([true, false, true]);
  });
});
