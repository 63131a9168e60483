/**
 * The sampling parts of the merge-time model (eta-model.ts): a seeded generator, the main slots a
 * sample's runs occupy, and the estimate's weighted median.
 */
/** mulberry32: small, fast, good enough for sampling. */
export function generator(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string, for seeds. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The `slots` main runs at once: when the next one can start, given the ends of those occupying them. */
export class SlotBoard {
  /** End times of the runs occupying slots, ascending. */
  private readonly busy: number[];
  constructor(
    private readonly slots: number,
    ends: readonly number[] = [],
  ) {
    this.busy = [...ends].sort((a, b) => a - b);
  }
  occupy(end: number): void {
    let i = this.busy.length;
    while (i > 0 && this.busy[i - 1] > end) i--;
    this.busy.splice(i, 0, end);
  }
  /** A run occupying a slot until `from` holds it until `to` instead (it was restarted). */
  extend(from: number, to: number): void {
    const i = this.busy.indexOf(from);
    if (i >= 0) this.busy.splice(i, 1);
    this.occupy(to);
  }
  /** The earliest start at or after `ready` with a free slot. */
  freeAt(ready: number): number {
    const b = this.busy;
    return b.length < this.slots ? ready : Math.max(ready, b[b.length - this.slots]);
  }
}

/** The first index of `sorted` whose value is ≥ x. */
export function lowerBound(sorted: readonly number[], x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Waits shorter than this weigh as much as it in `relativeMedian`. */
const RELATIVE_FLOOR_MS = 60_000;

/**
 * The time x that minimises the mean of |x − t| / (t − now) over the sampled merge times t (sorted):
 * the smallest error as a share of the wait the PR will have had. It is the median of the samples
 * weighted by 1 / (t − now) (waits under a minute weigh as one minute): it leans towards the early
 * merges, where the same minutes are a larger share of the wait.
 */
export function relativeMedian(sorted: ArrayLike<number>, now: number): number {
  const weight = (t: number): number => 1 / Math.max(RELATIVE_FLOOR_MS, t - now);
  let total = 0;
  for (let i = 0; i < sorted.length; i++) total += weight(sorted[i]);
  let sum = 0;
  for (let i = 0; i < sorted.length; i++) {
    sum += weight(sorted[i]);
    if (sum >= total / 2) return sorted[i];
  }
  return sorted[sorted.length - 1];
}
