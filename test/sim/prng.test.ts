/** Seeded random numbers: reproducible, independent per purpose, with the right means. */
import { describe, expect, it } from 'vitest';
import { Prng } from '../../src/sim/prng.js';

const draws = (r: Prng, n: number, f: (r: Prng) => number): number[] => Array.from({ length: n }, () => f(r));
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('Prng', () => {
  it('the same seed gives the same stream; another seed or purpose another one', () => {
    const a = draws(new Prng(42), 5, (r) => r.next());
    expect(draws(new Prng(42), 5, (r) => r.next())).toEqual(a);
    expect(draws(new Prng(43), 5, (r) => r.next())).not.toEqual(a);
    expect(draws(Prng.derive(42, 'ci'), 5, (r) => r.next())).not.toEqual(
      draws(Prng.derive(42, 'workload'), 5, (r) => r.next()),
    );
    expect(draws(Prng.derive(42, 'ci'), 5, (r) => r.next())).toEqual(draws(Prng.derive(42, 'ci'), 5, (r) => r.next()));
  });

  it('draws in range with the expected means', () => {
    const r = new Prng(7);
    const uniform = draws(r, 20_000, (x) => x.next());
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...uniform)).toBeLessThan(1);
    expect(mean(uniform)).toBeCloseTo(0.5, 1);
    expect(mean(draws(r, 20_000, (x) => (x.chance(0.05) ? 1 : 0)))).toBeCloseTo(0.05, 2);
    expect(mean(draws(r, 20_000, (x) => x.exponential(6)))).toBeCloseTo(6, 0);
    expect(mean(draws(r, 20_000, (x) => x.lognormal(30, 0.5)))).toBeCloseTo(30, 0);
    const lanes = draws(r, 20_000, (x) => x.below(4));
    expect(new Set(lanes)).toEqual(new Set([0, 1, 2, 3]));
  });
});
