/**
 * Simulated CI (a fake: never used by `greenline serve`). A run's outcome follows from what it
 * contains: it fails when any PR head in it is bad (bad code fails every run that includes it), and
 * otherwise fails spuriously with the flake probability. Its duration is drawn from the configured
 * distribution, or, for replayed PRs, is the longest recorded CI time of the PRs under test.
 */
import type { Prng } from './prng.js';

export type CiDuration =
  | { kind: 'fixed'; minutes: number }
  /** Uniform in [minutes − jitter, minutes + jitter]. */
  | { kind: 'uniform'; minutes: number; jitter: number }
  /** Log-normal with mean `minutes` and shape `sigma`. */
  | { kind: 'lognormal'; minutes: number; sigma: number };

export interface CiVerdict {
  minutes: number;
  outcome: 'success' | 'failure';
  /** Failed although every PR in it is good. */
  flaked: boolean;
}

export interface SimulatedPr {
  number: number;
  bad: boolean;
  /** Recorded CI time (replay), used instead of a drawn one. */
  ciMinutes: number | null;
}

export class SimulatedCi {
  constructor(
    private readonly duration: CiDuration,
    private readonly flakeRate: number,
    private readonly random: Prng,
  ) {}

  /** The verdict of a run testing `group` on top of `included` (every PR in the test commit). */
  verdict(group: readonly SimulatedPr[], included: readonly SimulatedPr[]): CiVerdict {
    const drawn = this.draw();
    const recorded = group.map((p) => p.ciMinutes).filter((m): m is number => m !== null);
    const minutes = recorded.length > 0 ? Math.max(...recorded) : drawn;
    const spurious = this.random.chance(this.flakeRate);
    if (included.some((p) => p.bad)) return { minutes, outcome: 'failure', flaked: false };
    return { minutes, outcome: spurious ? 'failure' : 'success', flaked: spurious };
  }

  private draw(): number {
    const d = this.duration;
    switch (d.kind) {
      case 'fixed':
        return d.minutes;
      case 'uniform':
        return d.minutes - d.jitter + 2 * d.jitter * this.random.next();
      case 'lognormal':
        return this.random.lognormal(d.minutes, d.sigma);
    }
  }
}
