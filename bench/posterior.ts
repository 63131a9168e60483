/**
 * Which PRs may be bad, given what a queue's finished runs said, for bench/eta-bound.bench.ts. Each
 * PR is bad with a prior chance, independently; a run that passed clears every PR in its test commit,
 * and one that failed holds at least one bad PR (no run flakes). Draws from that posterior come from a
 * Gibbs sampler: PR by PR, bad for sure when it is the only PR left that can explain a failed run,
 * otherwise bad with the prior chance. It starts from a state that explains every failure (the truth)
 * and runs BURN_IN_SWEEPS sweeps before the first draw.
 */
import type { Prng } from '../src/sim/prng.js';

const BURN_IN_SWEEPS = 100;
const SWEEPS_BETWEEN_DRAWS = 10;

/** What the queue's finished runs said about the PRs. */
export class RunKnowledge {
  readonly good = new Set<number>();
  readonly failed: (readonly number[])[] = [];

  /** `failureRate`: the prior chance that a PR is bad, each PR independently. */
  constructor(private readonly failureRate: number) {}

  ciFinished(included: readonly number[], outcome: 'success' | 'failure'): void {
    if (outcome === 'success') for (const n of included) this.good.add(n);
    else this.failed.push(included);
  }

  /**
   * `count` draws of the bad PRs among those that can still matter (the queued PRs not known to be
   * good, and those sharing a failed run with them), given the finished runs, with `target` good.
   */
  draws(queued: readonly number[], target: number, truth: (n: number) => boolean, random: Prng, count: number) {
    const failures = this.failed.map((c) => c.filter((n) => n !== target && !this.good.has(n)));
    const failuresOf = new Map<number, number[]>();
    failures.forEach((c, i) => {
      if (c.length === 0) throw new Error(`a failed run holds no PR that may be bad: flaky runs are not modelled`);
      for (const n of c) {
        const of = failuresOf.get(n);
        if (of) of.push(i);
        else failuresOf.set(n, [i]);
      }
    });
    const unknown = new Set<number>();
    const stack = queued.filter((n) => n !== target && !this.good.has(n));
    while (stack.length > 0) {
      const n = stack.pop()!;
      if (unknown.has(n)) continue;
      unknown.add(n);
      for (const i of failuresOf.get(n) ?? []) stack.push(...failures[i]);
    }
    const vars = [...unknown];
    const bad = new Map(vars.map((n) => [n, truth(n)]));
    const badIn = failures.map((c) => c.filter((n) => bad.get(n)).length);
    const sweep = (): void => {
      for (const n of vars) {
        const was = bad.get(n)!;
        // Bad for sure when it is the only PR left to explain a failed run; otherwise as likely as any PR.
        const forced = (failuresOf.get(n) ?? []).some((i) => badIn[i] - (was ? 1 : 0) === 0);
        const now = forced || random.chance(this.failureRate);
        if (now === was) continue;
        bad.set(n, now);
        for (const i of failuresOf.get(n) ?? []) badIn[i] += now ? 1 : -1;
      }
    };
    for (let i = 0; i < BURN_IN_SWEEPS; i++) sweep();
    const out: { unknown: ReadonlySet<number>; bad: ReadonlySet<number> }[] = [];
    for (let k = 0; k < count; k++) {
      for (let i = 0; i < SWEEPS_BETWEEN_DRAWS; i++) sweep();
      out.push({ unknown, bad: new Set(vars.filter((n) => bad.get(n))) });
    }
    return out;
  }
}
