/**
 * The estimated merge time as a distribution: a small Monte-Carlo run of the queue's model, each
 * sample drawing which PRs are bad, how long each run takes and when PRs arrive, then following the
 * engine's documented policy (scheduling.ts, failure.ts, bisection.ts) in queue order. A PR's
 * estimate is the time with the least mean error as a share of its wait over its samples
 * (`relativeMedian`, kept within the range), p10 and p90 its range. Deterministic: the draws come
 * from a generator seeded by the queue and `now`.
 *
 * One sample, per lane in queue order:
 * - Each PR is bad with a probability drawn for the sample from what the recent runs allow (the
 *   per-PR failure rate and how many PR outcomes it was counted from); a PR that passed its tests
 *   is good. A group with a bad PR fails.
 * - A run lasts a duration drawn from the recent finished runs; a run in flight, one drawn among
 *   those longer than it has run so far.
 * - A group that has not started starts when it is ready (its batching deadline, or earlier when the
 *   PRs arriving at the queue's recent rate fill it) and a slot is free.
 * - A failure is known when the group's run ended and everything ahead of it settled; every run
 *   behind it that started before then and had not ended before then restarts then (as often as
 *   failures ahead land in its run), keeping its slot.
 * - A failed batch is bisected at once (not on the main slots): halves tested for a drawn duration,
 *   a failing half split again, a single failing PR evicted; the main runs behind it restarted once,
 *   without it, when it failed. A cleared part re-enters the queue just behind the groups that
 *   started without it (those of the queue, and those the PRs still to arrive form) and is tested
 *   again there; when none did, its run counts as its test. Groups behind a failed batch merge
 *   without waiting for it.
 * - A passing group merges when its run ended and the groups ahead of it in the lane merged.
 * A PR's samples are those in which it is good: the estimate is that of a merge.
 */
import { generator, lowerBound, relativeMedian, SlotBoard } from './eta-sampling.js';

/** A merge-time distribution: the estimate (`relativeMedian`, within p10–p90) and the 10th and 90th percentiles, epoch ms. */
export interface MergeDistribution {
  estimate: number;
  p10: number;
  p90: number;
}

/** What the model starts from: the queue's groups in order, as the scheduler forms them. */
export interface ModelGroup {
  members: readonly number[];
  lane: number;
  kind: 'passed' | 'failing' | 'running' | 'waiting' | 'part';
  /** For `running` and `part` (with a run): when the run started. */
  runStart?: number;
  /** `waiting`: the earliest start (now, or the batching deadline). */
  readyAt: number;
  /** `waiting`, a batch that may fill before its deadline: how many PRs it lacks. */
  missing?: number;
  /** `running`: the run occupies a main slot. */
  mainSlot?: boolean;
}

export interface ModelInput {
  groups: readonly ModelGroup[];
  now: number;
  slots: number;
  /** Recent CI durations, ascending, ms (at least one). */
  durations: readonly number[];
  /** Probability that a PR is bad. */
  prFailureRate: number;
  /**
   * How many PR outcomes `prFailureRate` was counted from: each sample draws its own probability
   * from what they allow (the Beta(bad + ½, good + ½) posterior, Jeffreys' prior); 0: taken as known.
   */
  prOutcomes: number;
  /** PRs arriving per ms (0: none expected). */
  arrivalRate: number;
  /** How the PRs still to arrive form groups: up to `size` PRs, started `waitMs` after the first unless full before. */
  grouping: { size: number; waitMs: number };
  seed: number;
  samples: number;
}

interface Deferred {
  members: readonly number[];
  /** When the part passed. */
  at: number;
  /** Groups behind the failed batch that started before `at`, without it. */
  overtaken: number;
}

interface Lane {
  /** Merge time of the last group that merges, in order. */
  merged: number;
  /** When everything processed so far has settled (passed or failed). */
  settled: number;
  /** Failure times, ascending (they are, in queue order). */
  failures: number[];
  deferred: Deferred[];
}

/** Merge-time distribution of every PR the model can merge, by PR number. */
export function sampleMerges(input: ModelInput): Map<number, MergeDistribution> {
  const { groups, now, durations, slots } = input;
  const p = Math.min(1, Math.max(0, input.prFailureRate));
  const rand = generator(input.seed);
  const draw = (): number => durations[Math.floor(rand() * durations.length)];
  /** A duration longer than `elapsed` (a run in flight); its end no earlier than now. */
  const remaining = (start: number): number => {
    const from = lowerBound(durations, now - start);
    if (from >= durations.length) return now;
    return Math.max(now, start + durations[from + Math.floor(rand() * (durations.length - from))]);
  };
  const exponential = (rate: number): number => -Math.log(1 - rand()) / rate;
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
  /** Gamma(k, 1) (Marsaglia and Tsang). */
  const gamma = (k: number): number => {
    if (k < 1) return gamma(k + 1) * (1 - rand()) ** (1 / k);
    const d = k - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = normal();
      const v = (1 + c * x) ** 3;
      if (v > 0 && Math.log(1 - rand()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
    }
  };
  /** This sample's probability that a PR is bad. */
  const badRate = (): number => {
    if (input.prOutcomes <= 0) return p;
    const bad = gamma(p * input.prOutcomes + 0.5);
    return bad / (bad + gamma((1 - p) * input.prOutcomes + 0.5));
  };

  const prs: number[] = [];
  const index = new Map<number, number>();
  for (const g of groups)
    for (const n of g.members)
      if (!index.has(n)) {
        index.set(n, prs.length);
        prs.push(n);
      }
  // Members as indices into `prs` (PRs still to arrive: below zero).
  const indices = groups.map((g) => g.members.map((n) => index.get(n)!));
  const M = input.samples;
  const merges = new Float64Array(prs.length * M).fill(Number.NaN);
  const bad = new Uint8Array(prs.length);

  for (let s = 0; s < M; s++) {
    const q = badRate();
    for (let i = 0; i < prs.length; i++) bad[i] = rand() < q ? 1 : 0;
    // PRs still to arrive into an open batch: numbers below zero, bad with the same probability.
    const arriving: boolean[] = [];
    const isBad = (i: number): boolean => (i < 0 ? arriving[-i - 1] : bad[i] === 1);
    const anyBad = (members: readonly number[]): boolean => {
      for (const i of members) if (isBad(i)) return true;
      return false;
    };
    const record = (members: readonly number[], at: number): void => {
      for (const i of members) if (i >= 0 && bad[i] === 0) merges[i * M + s] = at;
    };
    const board = new SlotBoard(slots);
    const occupy = (end: number): void => board.occupy(end);
    const slotFreeAt = (ready: number): number => board.freeAt(ready);
    // Runs in flight: their ends, drawn first so that they hold their slots.
    const runEnds = new Map<ModelGroup, number>();
    for (const g of groups) {
      if ((g.kind === 'running' || g.kind === 'part') && g.runStart !== undefined) {
        const end = remaining(g.runStart);
        runEnds.set(g, end);
        if (g.mainSlot) occupy(end);
      }
    }
    /** Arrivals drawn so far (into the open batch) reach this time. */
    let arrivedUntil = now;
    /**
     * The PRs still to arrive form groups behind the queue (spread evenly over the lanes); each
     * that starts before a cleared part passed left it out, so the part is tested again behind it.
     */
    const overtakeByArrivals = (lane: Lane, rate: number, from: number): void => {
      if (lane.deferred.length === 0 || rate <= 0) return;
      let last = 0;
      for (const d of lane.deferred) last = Math.max(last, d.at);
      const { size, waitMs } = input.grouping;
      for (let at = from; ; ) {
        let t = at + exponential(rate);
        let start = t + waitMs;
        let n = 1;
        for (; n < size; n++) {
          const next = t + exponential(rate);
          if (next > start) break;
          t = next;
        }
        if (n === size) start = t;
        if (start >= last) return;
        for (const d of lane.deferred) if (start < d.at) d.overtaken++;
        at = start; // arrivals are memoryless: the next group's count from here
      }
    };
    const lanes = new Map<number, Lane>();
    const laneOf = (k: number): Lane => {
      let l = lanes.get(k);
      if (!l) {
        l = { merged: now, settled: now, failures: [], deferred: [] };
        lanes.set(k, l);
      }
      return l;
    };
    /** The end of a run from `start`, restarted by every failure ahead that lands in it. */
    const withRestarts = (lane: Lane, start: number, end: number): number => {
      const f = lane.failures;
      for (;;) {
        const i = lowerBound(f, end + 1) - 1; // the latest failure at or before the end (to the ms)
        if (i < 0 || f[i] <= start) return end;
        start = f[i];
        end = start + draw();
      }
    };
    /** A failing part is split again; the main runs behind the batch restarted when it failed. */
    const partFailed = (lane: Lane, members: readonly number[], at: number): void => {
      if (members.length > 1) bisect(lane, members, at);
    };
    const bisect = (lane: Lane, members: readonly number[], at: number): void => {
      const cut = Math.ceil(members.length / 2);
      for (const half of [members.slice(0, cut), members.slice(cut)]) {
        if (half.length === 0) continue;
        const end = at + draw();
        if (!anyBad(half)) lane.deferred.push({ members: half, at: end, overtaken: 0 });
        else partFailed(lane, half, end);
      }
    };
    /** Cleared parts that passed by `until` re-enter ahead of what starts later. */
    const reenter = (lane: Lane, until: number): void => {
      if (lane.deferred.length === 0) return;
      const due = lane.deferred.filter((d) => d.at <= until);
      if (due.length === 0) return;
      lane.deferred = lane.deferred.filter((d) => d.at > until);
      due.sort((a, b) => a.at - b.at);
      for (let i = 0; i < due.length; ) {
        const d = due[i++];
        let end = d.at;
        const members = [...d.members];
        if (d.overtaken > 0) {
          // Tested again in the main queue, batched as the scheduler batches the PRs waiting then.
          const start = slotFreeAt(d.at);
          while (
            i < due.length &&
            due[i].overtaken > 0 &&
            due[i].at <= start &&
            members.length + due[i].members.length <= input.grouping.size
          )
            members.push(...due[i++].members);
          end = withRestarts(lane, start, start + draw());
          occupy(end);
        }
        lane.merged = Math.max(end, lane.merged);
        lane.settled = Math.max(end, lane.settled);
        record(members, lane.merged);
      }
    };
    const fail = (lane: Lane, members: readonly number[], end: number): void => {
      const at = Math.max(end, lane.settled);
      lane.failures.splice(lowerBound(lane.failures, at), 0, at);
      lane.settled = at;
      if (members.length > 1) bisect(lane, members, at);
    };

    for (let gi = 0; gi < groups.length; gi++) {
      const g = groups[gi];
      const own = indices[gi];
      const lane = laneOf(g.lane);
      if (g.kind === 'passed') {
        lane.merged = Math.max(now, lane.merged);
        record(own, lane.merged);
        continue;
      }
      if (g.kind === 'failing') {
        fail(lane, own, now);
        continue;
      }
      if (g.kind === 'part') {
        const end = runEnds.get(g) ?? now + draw();
        if (!anyBad(own)) lane.deferred.push({ members: own, at: end, overtaken: 0 });
        else partFailed(lane, own, end);
        continue;
      }
      let start: number;
      let end: number;
      let members = own;
      if (g.kind === 'running') {
        start = g.runStart ?? now;
        end = runEnds.get(g) ?? now;
      } else {
        let ready = g.readyAt;
        if (g.missing !== undefined && g.missing > 0 && input.arrivalRate > 0) {
          arrivedUntil = ready;
          // The batch takes the PRs that arrive before its deadline, up to its size.
          let at = now;
          const joined: number[] = [];
          for (let k = 0; k < g.missing; k++) {
            at += exponential(input.arrivalRate);
            if (at >= ready) break;
            arriving.push(rand() < q);
            joined.push(-arriving.length);
          }
          if (joined.length === g.missing) arrivedUntil = ready = at;
          if (joined.length > 0) members = [...members, ...joined];
        }
        start = slotFreeAt(ready);
        reenter(lane, start);
        end = start + draw();
      }
      for (const d of lane.deferred) if (start < d.at) d.overtaken++;
      const planned = end;
      end = withRestarts(lane, start, end);
      if (g.kind === 'waiting') occupy(end);
      else if (g.mainSlot && end !== planned) board.extend(planned, end);
      if (anyBad(members)) fail(lane, members, end);
      else {
        lane.settled = Math.max(end, lane.settled);
        lane.merged = Math.max(end, lane.merged);
        record(members, lane.merged);
      }
    }
    for (const lane of lanes.values()) {
      overtakeByArrivals(lane, input.arrivalRate / lanes.size, arrivedUntil);
      reenter(lane, Number.POSITIVE_INFINITY);
    }
  }

  const out = new Map<number, MergeDistribution>();
  const mine = new Float64Array(M);
  prs.forEach((n, i) => {
    let k = 0;
    for (let s = 0; s < M; s++) {
      const v = merges[i * M + s];
      if (!Number.isNaN(v)) mine[k++] = v;
    }
    if (k === 0) return;
    const sorted = mine.subarray(0, k).sort();
    const at = (q: number): number => sorted[Math.min(k - 1, Math.max(0, Math.ceil(q * k) - 1))];
    const p10 = at(0.1);
    const p90 = at(0.9);
    out.set(n, { estimate: Math.min(p90, Math.max(p10, relativeMedian(sorted, now))), p10, p90 });
  });
  return out;
}
