/** A PR's stack: the queued PRs chained by their branches, bottom first. */
import { describe, expect, it } from 'vitest';
import type { Entry, PrState } from '../../src/engine/index.js';
import { stackOf } from '../../src/engine/stacks.js';

function entry(n: number, baseBranch: string, headBranch: string | undefined, state: PrState = 'NOT_READY'): Entry {
  return {
    id: `e${n}`,
    prNumber: n,
    trip: 1,
    state,
    stateChangedAt: 0,
    submittedAt: n,
    admittedAt: null,
    headSha: `h${n}`,
    baseBranch,
    ...(headBranch === undefined ? {} : { headBranch }),
    title: `PR ${n}`,
    author: 'dev',
    mergeability: 'mergeable',
    priorityValue: 100,
  } as Entry;
}

describe('stackOf', () => {
  const layers = [entry(7, 'a', 'c'), entry(5, 'main', 'a', 'TESTING'), entry(9, 'c', 'd'), entry(2, 'main', 'x')];

  it('chains each PR to the one whose head branch is its base, from any layer, bottom first', () => {
    for (const n of [5, 7, 9]) expect(stackOf(layers, n)).toEqual([5, 7, 9]);
  });

  it('is empty for a PR in no stack, and for one not queued', () => {
    expect(stackOf(layers, 2)).toEqual([]);
    expect(stackOf(layers, 42)).toEqual([]);
  });

  it('leaves out the layers that are no longer queued: a merged bottom, its next layer retargeted', () => {
    const merged = [entry(5, 'main', 'a', 'MERGED'), entry(7, 'main', 'c'), entry(9, 'c', 'd')];
    expect(stackOf(merged, 9)).toEqual([7, 9]);
  });

  it('stops at a cycle of branches instead of walking it for ever', () => {
    expect(stackOf([entry(1, 'b', 'a'), entry(2, 'a', 'b')], 1)).toEqual([2, 1]);
  });
});
