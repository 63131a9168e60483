/**
 * The simulator running the real engine against the speculative-chain formula (QUEUE-THEORY §3.2):
 * no batching, saturated arrivals, T = 30 min fixed, a failing PR evicted at once (PFD 0, no
 * optimistic merging) and everything behind it restarted. Merges per T and CI runs per merge must
 * be within 10% of q(1 − q^N)/p and N·p/(q(1 − q^N)).
 *
 * p in the formula is the failure probability of the PRs the queue actually saw: the fraction of
 * bad PRs drawn in the run. A few thousand PRs draw p with a relative error of several percent
 * (binomial noise: ±7% at p = 10% over 1,800 PRs), which would swamp what this test is about, the
 * queue; the draw itself is checked against the nominal p separately, and merges per T against the
 * nominal formula as well.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions } from '../../src/sim/options.js';
import { simulate } from '../../src/sim/simulator.js';
import { chainMergesPerCi, chainRunsPerMerge } from '../../src/sim/theory.js';

const T = 30;
/** Rounds of one CI time measured per case: enough for a stable estimate, small enough to stay fast. */
const ROUNDS = 150;
/** At least this many PRs, so that even N = 1 draws p from a fair sample. */
const MIN_PRS = 600;

const cases = [0.02, 0.05, 0.1].flatMap((p) => [1, 5, 10].map((n) => ({ p, n })));

describe('speculative chain: simulated engine vs q(1 − q^N)/p', () => {
  it.each(cases)('p = $p, N = $n', ({ p, n }) => {
    const { summary } = simulate({
      ...defaultOptions(),
      seed: 11,
      arrivals: { kind: 'saturated', backlog: 2 * n + 5 },
      maxPrs: Math.max(MIN_PRS, Math.ceil(ROUNDS * chainMergesPerCi(p, n))),
      failureRate: p,
      flakeRate: 0,
      ci: { kind: 'fixed', minutes: T },
      queue: { concurrency: n, batch: false, pendingFailureDepth: 0, canOptimisticallyMerge: false },
      measureEta: false,
    });
    const drawn = summary.prs.failedBad / summary.prs.arrived;
    // The workload draws bad PRs with probability p: within 4 standard errors.
    expect(Math.abs(drawn - p)).toBeLessThan(4 * Math.sqrt((p * (1 - p)) / summary.prs.arrived));

    const mergesPerT = (summary.mergesPerHour * T) / 60;
    // Against the nominal p too (this one also carries the sampling noise of the draw).
    expect(Math.abs(mergesPerT / chainMergesPerCi(p, n) - 1)).toBeLessThan(0.1);
    expect(mergesPerT / chainMergesPerCi(drawn, n)).toBeGreaterThan(0.9);
    expect(mergesPerT / chainMergesPerCi(drawn, n)).toBeLessThan(1.1);
    expect(summary.ciRunsPerMerge / chainRunsPerMerge(drawn, n)).toBeGreaterThan(0.9);
    expect(summary.ciRunsPerMerge / chainRunsPerMerge(drawn, n)).toBeLessThan(1.1);
    // Every bad PR was caught, no good one was rejected, and every merge was what was tested.
    expect(summary.prs.mergedBad).toBe(0);
    expect(summary.prs.failedGood).toBe(0);
    expect(summary.invariantBreaches).toBe(0);
  });

  it('the formula itself: the table of QUEUE-THEORY §3.2 at T = 30 min', () => {
    const perHour = (p: number, n: number) => (chainMergesPerCi(p, n) * 60) / T;
    expect(perHour(0.02, 10)).toBeCloseTo(17.9, 1);
    expect(perHour(0.05, 10)).toBeCloseTo(15.2, 1);
    expect(perHour(0.1, 5)).toBeCloseTo(7.4, 1);
    expect(chainRunsPerMerge(0.05, 10)).toBeCloseTo(1.31, 2);
    expect(chainRunsPerMerge(0.1, 10)).toBeCloseTo(1.71, 2);
    expect(chainMergesPerCi(0, 4)).toBe(4);
  });
});
