/**
 * The PRs a simulation draws: uniform risk draws exactly the stream it always drew; uneven risk puts
 * 70% of the bad PRs on a fifth of the authors at the same overall rate; truth labels the same PRs.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, validateOptions, type SimulationOptions } from '../../src/sim/options.js';
import { Prng } from '../../src/sim/prng.js';
import { AUTHORS, RISKY_AUTHORS, unevenRates, Workload, type ArrivingPr } from '../../src/sim/workload.js';

const COUNT = 20_000;

function draw(over: Partial<SimulationOptions>): ArrivingPr[] {
  const o = { ...defaultOptions(), seed: 7, maxPrs: COUNT, lanes: 3, queue: { mode: 'parallel' as const }, ...over };
  expect(validateOptions(o)).toBeNull();
  const w = new Workload(o, Prng.derive(o.seed, 'workload'), 0);
  const prs: ArrivingPr[] = [];
  for (let pr = w.nextPr(0); pr !== null; pr = w.nextPr(0)) prs.push(pr);
  return prs;
}

describe('the workload', () => {
  it('with uniform risk draws, per PR, bad or not and then its lane from the stream, as it always did', () => {
    const random = Prng.derive(7, 'workload');
    const expected = Array.from({ length: COUNT }, () => ({ bad: random.chance(0.05), lane: random.below(3) }));
    const prs = draw({});
    expect(prs.map((p) => ({ bad: p.bad, lane: p.lane }))).toEqual(expected);
    expect(new Set(prs.map((p) => p.author))).toEqual(new Set(['sim']));
  });

  it('with uneven risk, a fifth of the authors write 70% of the bad PRs, at the same overall rate', () => {
    expect(unevenRates(0.05).risky).toBeCloseTo(0.175, 12);
    expect(unevenRates(0.05).other).toBeCloseTo(0.01875, 12);
    const prs = draw({ risk: 'uneven' });
    const risky = new Set(Array.from({ length: RISKY_AUTHORS }, (_, i) => `author-${i + 1}`));
    expect(new Set(prs.map((p) => p.author)).size).toBe(AUTHORS);
    const bad = prs.filter((p) => p.bad);
    // Binomial noise over 20,000 PRs: the overall rate within ±0.5 points, the risky share within ±4.
    expect(Math.abs(bad.length / COUNT - 0.05)).toBeLessThan(0.005);
    expect(Math.abs(bad.filter((p) => risky.has(p.author)).length / bad.length - 0.7)).toBeLessThan(0.04);
    expect(Math.abs(prs.filter((p) => risky.has(p.author)).length / COUNT - 0.2)).toBeLessThan(0.01);
  });

  it('with truth, draws the same PRs as uneven and names their authors by whether they are bad', () => {
    const uneven = draw({ risk: 'uneven' });
    const truth = draw({ risk: 'truth' });
    expect(truth.map((p) => p.bad)).toEqual(uneven.map((p) => p.bad));
    expect(truth.every((p) => p.author === (p.bad ? 'writes-bad-code' : 'writes-good-code'))).toBe(true);
  });

  it('refuses an unknown risk model, and risk with a replay', () => {
    expect(validateOptions({ ...defaultOptions(), risk: 'lumpy' as never })).toBe(
      '--risk must be one of uniform, uneven, truth, got lumpy',
    );
    const replay = { kind: 'replay' as const, prs: [{ arrivalMinutes: 0, ciMinutes: 30, bad: false }] };
    expect(validateOptions({ ...defaultOptions(), arrivals: replay, risk: 'uneven' })).toBe(
      '--risk does not apply to --replay: its outcome column says which PRs fail',
    );
  });
});
