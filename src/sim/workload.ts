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
    const bad = this.random.chance(this.o.failureRate);
    const lane = this.random.below(this.o.lanes);
    this.count++;
    return { number: this.count, bad: replayed ? replayed.bad : bad, ciMinutes: replayed?.ciMinutes ?? null, lane };
  }

  private open(at: number): boolean {
    const a = this.o.arrivals;
    if (this.o.maxPrs !== null && this.count >= this.o.maxPrs) return false;
    if (a.kind === 'replay' && this.count >= a.prs.length) return false;
    if (this.o.hours !== null && at > this.start + this.o.hours * 60 * MINUTE_MS) return false;
    return Number.isFinite(at);
  }
}
