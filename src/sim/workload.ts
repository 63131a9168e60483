/**
 * The PRs a simulation submits, and when. Each PR's own facts (bad code or not, its lane) come from
 * a stream of their own, in arrival order, so the same seed gives the same PRs whatever the queue
 * settings: comparisons between settings run on common random numbers.
 */
import { MINUTE_MS } from '../lib/time.js';
import type { SimulatedPr } from './simulated-ci.js';
import type { SimulationOptions } from './options.js';
import type { Prng } from './prng.js';

export interface ArrivingPr extends SimulatedPr {
  lane: number;
  /** Who wrote it: what the queue can observe of its risk (the engine's risk.ts). */
  author: string;
}

/**
 * The uneven-risk workload (`risk: 'uneven'`): AUTHORS authors, each PR written by one of them
 * uniformly; the first RISKY_AUTHORS (a fifth, so a fifth of the PRs) write RISKY_SHARE_OF_BAD of the
 * bad PRs. With a failure rate p, a PR of a risky author is bad with probability 0.7p / 0.2 (17.5% at
 * p = 5%), any other with 0.3p / 0.8 (1.875%). Knowing each author's rate exactly ranks a bad PR above
 * a good one with probability (AUC) 0.76 at p = 5% (docs/simulator.md).
 */
export const AUTHORS = 50;
export const RISKY_AUTHORS = 10;
export const RISKY_SHARE_OF_BAD = 0.7;

/** The probability that a PR of a risky author (or of another) is bad, at failure rate `p`. */
export function unevenRates(p: number): { risky: number; other: number } {
  const share = RISKY_AUTHORS / AUTHORS;
  return { risky: Math.min(1, (RISKY_SHARE_OF_BAD * p) / share), other: ((1 - RISKY_SHARE_OF_BAD) * p) / (1 - share) };
}

export class Workload {
  readonly saturated: boolean;
  readonly backlog: number;
  private count = 0;

  /** `start`: the simulated time arrivals count from. */
  constructor(
    private readonly o: SimulationOptions,
    private readonly random: Prng,
    private readonly start: number,
  ) {
    this.saturated = o.arrivals.kind === 'saturated';
    this.backlog = o.arrivals.kind === 'saturated' ? o.arrivals.backlog : 0;
  }

  /** The same workload from here on, its PRs still to come drawn from `random`. */
  fork(random: Prng): Workload {
    const copy = new Workload(this.o, random, this.start);
    copy.count = this.count;
    return copy;
  }

  /** When the next PR arrives after one at `now` (Poisson, replay), or null when arrivals are over. */
  nextArrival(now: number): number | null {
    const a = this.o.arrivals;
    let at: number;
    if (a.kind === 'poisson') at = now + this.random.exponential(60 / a.perHour) * MINUTE_MS;
    else if (a.kind === 'replay') at = this.start + (a.prs[this.count]?.arrivalMinutes ?? Infinity) * MINUTE_MS;
    else throw new Error('saturated arrivals have no schedule: they follow the queue');
    return this.open(at) ? at : null;
  }

  /** The PR arriving at `now`, or null when arrivals are over. */
  nextPr(now: number): ArrivingPr | null {
    if (!this.open(now)) return null;
    const a = this.o.arrivals;
    const replayed = a.kind === 'replay' ? a.prs[this.count] : undefined;
    // Uniform risk draws exactly what it always drew: the same seed gives the same PRs as before.
    const writer = this.o.risk === 'uniform' ? null : this.random.below(AUTHORS);
    const rates = unevenRates(this.o.failureRate);
    const p = writer === null ? this.o.failureRate : writer < RISKY_AUTHORS ? rates.risky : rates.other;
    const drawn = this.random.chance(p);
    const lane = this.random.below(this.o.lanes);
    this.count++;
    const bad = replayed ? replayed.bad : drawn;
    return {
      number: this.count,
      bad,
      ciMinutes: replayed?.ciMinutes ?? null,
      lane,
      author: authorOf(writer, bad, this.o),
    };
  }

  private open(at: number): boolean {
    const a = this.o.arrivals;
    if (this.o.maxPrs !== null && this.count >= this.o.maxPrs) return false;
    if (a.kind === 'replay' && this.count >= a.prs.length) return false;
    if (this.o.hours !== null && at > this.start + this.o.hours * 60 * MINUTE_MS) return false;
    return Number.isFinite(at);
  }
}

/**
 * The author the queue sees: one name for every PR with uniform risk; the writer with uneven risk;
 * with `truth`, the same PRs labelled by whether they are bad, which a queue learning from authors
 * turns into (nearly) perfect knowledge of each PR's risk: the bound of risk-aware batching.
 */
function authorOf(writer: number | null, bad: boolean, o: SimulationOptions): string {
  if (writer === null) return 'sim';
  if (o.risk === 'truth') return bad ? 'writes-bad-code' : 'writes-good-code';
  return `author-${writer + 1}`;
}
