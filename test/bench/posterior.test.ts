/** The posterior behind bench:eta-bound: which PRs may be bad, given what the finished runs said. */
import { describe, expect, it } from 'vitest';
import { RunKnowledge } from '../../bench/posterior.js';
import { Prng } from '../../src/sim/prng.js';

const DRAWS = 4000;
const share = (draws: { bad: ReadonlySet<number> }[], pr: number) =>
  draws.filter((d) => d.bad.has(pr)).length / draws.length;

describe('RunKnowledge.draws', () => {
  it('a failed run of four unknown PRs holds at least one bad PR, each bad with p / (1 − (1 − p)⁴)', () => {
    const k = new RunKnowledge(0.05);
    k.ciFinished([1, 2, 3, 4], 'failure');
    const draws = k.draws([1, 2, 3, 4, 5], 0, (n) => n === 2, new Prng(3), DRAWS);
    expect(draws.every((d) => [1, 2, 3, 4].some((n) => d.bad.has(n)))).toBe(true);
    const expected = 0.05 / (1 - 0.95 ** 4); // 0.27
    for (const n of [1, 2, 3, 4]) expect(share(draws, n)).toBeCloseTo(expected, 1);
    expect(share(draws, 5)).toBeCloseTo(0.05, 1); // nothing known: the prior
  });

  it('a passed run clears its PRs, so a failure of them and one more blames the one more', () => {
    const k = new RunKnowledge(0.05);
    k.ciFinished([1, 2], 'success');
    k.ciFinished([1, 2, 3], 'failure');
    const draws = k.draws([3, 4], 0, (n) => n === 3, new Prng(4), 200);
    expect(share(draws, 3)).toBe(1);
    expect(draws.every((d) => !d.unknown.has(1) && !d.unknown.has(2))).toBe(true);
  });

  it('the PR whose future is drawn is good: a failed pair blames the other one', () => {
    const k = new RunKnowledge(0.05);
    k.ciFinished([5, 6], 'failure');
    expect(
      share(
        k.draws([5, 6], 5, (n) => n === 6, new Prng(5), 200),
        6,
      ),
    ).toBe(1);
  });

  it('refuses a failure nothing can explain: flaky runs are not modelled', () => {
    const k = new RunKnowledge(0.05);
    k.ciFinished([7], 'success');
    k.ciFinished([7], 'failure');
    expect(() => k.draws([7], 0, () => false, new Prng(6), 1)).toThrow(/flaky runs are not modelled/);
  });
});
