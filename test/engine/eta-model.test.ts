/**
 * The sampled model of the queue (eta-model.ts) on hand-built groups: restarts, slots, bisection
 * parts, the failure rate's uncertainty and the point estimate.
 */
import { describe, expect, it } from 'vitest';
import { type ModelGroup, type ModelInput, sampleMerges } from '../../src/engine/eta-model.js';
import { relativeMedian } from '../../src/engine/eta-sampling.js';

const MIN = 60_000;
const NOW = 1_000 * MIN;

const running = (members: number[], startedMinutesAgo: number): ModelGroup => ({
  members,
  lane: 0,
  kind: 'running',
  runStart: NOW - startedMinutesAgo * MIN,
  readyAt: 0,
  mainSlot: true,
});
const waiting = (members: number[]): ModelGroup => ({ members, lane: 0, kind: 'waiting', readyAt: NOW });

/** [estimate, p10, p90] in minutes from now, by PR number. */
function model(groups: ModelGroup[], over: Partial<ModelInput> = {}): Record<number, [number, number, number]> {
  const out: Record<number, [number, number, number]> = {};
  const merges = sampleMerges({
    groups,
    now: NOW,
    slots: 10,
    durations: [30 * MIN],
    prFailureRate: 0.5,
    prOutcomes: 0,
    arrivalRate: 0,
    grouping: { size: 1, waitMs: 0 },
    seed: 1,
    samples: 51,
    ...over,
  });
  for (const [n, d] of merges) out[n] = [(d.estimate - NOW) / MIN, (d.p10 - NOW) / MIN, (d.p90 - NOW) / MIN];
  return out;
}

describe('sampleMerges', () => {
  it('a run that ends the moment a failure ahead is known restarts: its result came too late', () => {
    // Both runs end at +20; when PR 1 fails (half the samples), PR 2 is tested again until +50.
    expect(model([running([1], 10), running([2], 10)])[2]).toEqual([20, 20, 50]);
  });

  it('a restarted run keeps its slot: PRs waiting for one start when it ends', () => {
    // One slot. PR 1's failure is known now: PR 2, tested since 20 minutes, restarts and holds the
    // slot until +30; PR 3 starts then, not at +10 when PR 2's first run would have ended.
    const failing: ModelGroup = { members: [1], lane: 0, kind: 'failing', readyAt: 0 };
    expect(model([failing, running([2], 20), waiting([3])], { slots: 1, prFailureRate: 0 })[3]).toEqual([60, 60, 60]);
  });

  it('a failing bisection part does not restart the main runs behind the batch (they restarted without it)', () => {
    const part: ModelGroup = { members: [1, 2], lane: 0, kind: 'part', runStart: NOW - 10 * MIN, readyAt: 0 };
    expect(model([part, running([3], 5)])[3]).toEqual([25, 25, 25]);
  });

  it('a cleared part counts as its test unless a group behind started before it passed', () => {
    const part: ModelGroup = { members: [1, 2], lane: 0, kind: 'part', runStart: NOW - 10 * MIN, readyAt: 0 };
    expect(model([part], { prFailureRate: 0 })[1]).toEqual([20, 20, 20]);
    // A PR a minute arriving behind: the part is tested again from +20.
    expect(model([part], { prFailureRate: 0, arrivalRate: 1 / MIN })[1]).toEqual([50, 50, 50]);
  });

  it('cleared parts tested again are batched together, as the scheduler batches the PRs waiting', () => {
    const part = (members: number[]): ModelGroup => ({
      members,
      lane: 0,
      kind: 'part',
      runStart: NOW - 10 * MIN,
      readyAt: 0,
    });
    // One slot: both parts pass at +20, are left out by the groups arriving behind, and are tested
    // again in one run (+50), not one after the other (+80).
    const r = model([part([1]), part([2])], {
      slots: 1,
      prFailureRate: 0,
      arrivalRate: 1 / MIN,
      grouping: { size: 4, waitMs: 0 },
    });
    expect(r[2]).toEqual([50, 50, 50]);
  });

  it('a failure rate counted from few PRs is uncertain: no failure seen yet does not mean none will come', () => {
    const groups = [1, 2, 3, 4, 5].map((n) => running([n], 29 - n)).concat(running([6], 0));
    expect(model(groups, { prFailureRate: 0 })[6]).toEqual([30, 30, 30]);
    // Nothing failed in 3 PRs: the rate is drawn from Beta(½, 3½); a failure ahead restarts PR 6.
    expect(model(groups, { prFailureRate: 0, prOutcomes: 3 })[6]![2]).toBeGreaterThan(30);
    // In 300 PRs: the rate is known well enough that the range stays as it is.
    expect(model(groups, { prFailureRate: 0, prOutcomes: 300 })[6]).toEqual([30, 30, 30]);
  });
});

describe('relativeMedian', () => {
  it.each<[string, number[], number]>([
    ['one early merge outweighs two late ones', [10, 100, 100], 10],
    ['close merges: near the median', [50, 60, 70], 60],
    ['a wait under a minute weighs as one minute', [0.01, ...Array<number>(40).fill(30)], 30],
  ])('%s', (_name, minutes, expected) => {
    expect(
      relativeMedian(
        minutes.map((m) => NOW + m * MIN),
        NOW,
      ),
    ).toBe(NOW + expected * MIN);
  });
});
