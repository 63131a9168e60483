/**
 * The ETA model (eta-model.ts, as queueOutlook runs it) held to the engine it imitates. Each case
 * replays a small history in the simulator, where the real `decide` runs the queue and every CI run
 * takes D = 30 minutes. At a settled moment the queue is read and estimated from statistics that say
 * what the history says: every run takes D, and a PR fails with the rate the case gives. A fork of
 * the simulation then goes on to the end: the engine's merge times. Times are minutes since the first
 * arrival; the engine's are written out, so that each case is the one its comment tells.
 *
 * The bounds, and why:
 * - Exact, to the millisecond, where the model is told that nothing fails (rate 0) and nothing that
 *   can move the PR fails without the queue knowing yet. All runs take D, so each sample is a
 *   schedule in whole runs: a model that takes one slot, restart or bisection round more or less than
 *   the engine is off by D.
 * - Within p10–p90, where the model is told a failure rate (one PR in four; in two where two failures
 *   land in one run) and the engine's future holds a failure the queue does not know of yet. The rate
 *   makes that future a common one, not a tail beyond p90. Where only one failure can move a PR, its p10 and p90 are the engine's two
 *   futures exactly (a fork without the failure, and the real one).
 *
 * Where the model does not follow the engine, measured here (minutes since the first arrival):
 * - It does not know that a bisected batch holds a bad PR: at rate 0 every part passes, so a good PR
 *   in the part that will fail is estimated a bisection round early: PR 5 at 90, merged at 120 (held
 *   to within that round, never later).
 * - A cleared part the engine keeps as its own test although groups behind started without it: the
 *   engine keeps it when those groups spent less CI time than the part's run, and restarts them on
 *   top of it (bisection.ts `readmit`); the model tests the part again whenever one started before
 *   it passed. PRs 1–8 at 0, 9–12 at 35, batches of 4 on 2 slots, PR 6 bad: at 35 [9–12] has just
 *   started while [7,8] is tested until 60. The engine merges 7 and 8 at 60 and 9–12 at 90; the
 *   model says 90 for 7 and 8, 65 for 9–12. Not asserted.
 * - Parallel mode gives each lane a share of the slots (scheduling.ts LaneShare); the model gives
 *   them in queue order, as eta.ts says. Seed 1 draws lanes 1, 1, 0, 0, 1, 1, 1, 1 for PRs 1–8 at 0
 *   on 2 slots: the engine merges 3 and 5 at 60, 4 and 6 at 90; the model says 60 for 3 and 4, 90
 *   for 5 and 6. The lanes case here keeps each lane within its share, where the two agree.
 * - The model expects PRs to keep arriving at the queue's recent rate, which a replay that ends does
 *   not: the cases are chosen where those arrivals change nothing (the parts they would overtake are
 *   overtaken already, or fewer than three PRs are queued, when the model expects none).
 */
import { describe, expect, it } from 'vitest';
import { queueOutlook, type QueueConfig, type QueueSnapshot, type QueueStatistics } from '../../src/engine/index.js';
import { MINUTE_MS } from '../../src/lib/time.js';
import { defaultOptions } from '../../src/sim/options.js';
import type { ReplayPr } from '../../src/sim/replay-csv.js';
import { Simulation } from '../../src/sim/simulator.js';

/** Minutes every CI run takes. */
const D = 30;

/** The queue as the simulation holds it (the simulator keeps it private; this only reads it). */
function queueOf(sim: Simulation): QueueSnapshot {
  const snapshot = (sim as unknown as { snapshot?: QueueSnapshot }).snapshot;
  if (!snapshot) throw new Error('the simulation no longer keeps its queue in `snapshot`');
  return snapshot;
}

/** PRs all submitted at minute 0 (or at `every` minutes apart), each CI run D minutes, `bad` failing. */
const history = (count: number, bad: number[] = [], every = 0): ReplayPr[] =>
  Array.from({ length: count }, (_, i) => ({ arrivalMinutes: every * i, ciMinutes: D, bad: bad.includes(i + 1) }));

/** The model's estimate and p10–p90 range of a PR, minutes since the first arrival. */
interface Estimate {
  estimate: number;
  p10: number;
  p90: number;
}

/** A replayed history, probed at settled moments. Times are minutes since the first arrival. */
interface Case {
  sim: Simulation;
  /** Runs on to the end of the moment at `minutes`: every event due by then handled. */
  advanceTo(minutes: number): void;
  /** The model's estimates of the queue as it stands, told that a PR fails with `failureRate`. */
  model(failureRate: number): Map<number, Estimate>;
  /** The point estimates alone of the PRs given. */
  estimates(failureRate: number, prs: Iterable<number>): Map<number, number | undefined>;
  /**
   * When each queued PR leaves the queue in the engine's future from here: a fork of the simulation
   * runs to the end, with the same PRs bad or, given `bad`, those. The bad PRs fail, the others merge.
   */
  engine(bad?: (prNumber: number) => boolean): { merged: Map<number, number>; failed: Map<number, number> };
}

/** A simulation of the history; `seed` draws the lanes of parallel mode. */
function replay(queue: Partial<QueueConfig>, prs: ReplayPr[], lanes = 1, seed = 1): Case {
  const sim = Simulation.start({
    ...defaultOptions(),
    seed,
    arrivals: { kind: 'replay', prs },
    maxPrs: null,
    measureEta: false,
    flakeRate: 0,
    lanes,
    queue,
  });
  const epoch = sim.time;
  const minutes = (t: number): number => (t - epoch) / MINUTE_MS;
  let arrived = 0; // PRs are numbered in arrival order
  const model = (failureRate: number): Map<number, Estimate> => {
    const stats: QueueStatistics = {
      ciMs: D * MINUTE_MS,
      failureRate,
      samples: 50,
      durations: [D * MINUTE_MS],
      prFailureRate: failureRate,
      prOutcomes: 0, // the rate taken as known: each case says what it is
    };
    const out = new Map<number, Estimate>();
    for (const [n, o] of queueOutlook(queueOf(sim), stats, sim.time)) {
      if (o.estimatedMergeAt === null || o.estimatedMergeRange === null) continue;
      const { p10, p90 } = o.estimatedMergeRange;
      out.set(n, { estimate: minutes(o.estimatedMergeAt), p10: minutes(p10), p90: minutes(p90) });
    }
    return out;
  };
  return {
    sim,
    advanceTo(at) {
      const arriving = prs.filter((p) => p.arrivalMinutes <= at).length;
      // A run due now is still in progress until its CI result is handled.
      const due = (): boolean =>
        queueOf(sim).runs.some((r) => r.status === 'in_progress' && r.createdAt + D * MINUTE_MS <= sim.time);
      sim.advanceUntil(() => {
        for (const n of sim.queuedPrs()) arrived = Math.max(arrived, n);
        return minutes(sim.time) >= at && arrived >= arriving && !due();
      });
      expect(minutes(sim.time), `something happens at minute ${at}: the probe`).toBe(at);
    },
    model,
    estimates(failureRate, numbers) {
      const m = model(failureRate);
      return new Map([...numbers].map((n) => [n, m.get(n)?.estimate]));
    },
    engine(bad = (n) => sim.isBad(n)) {
      const fork = sim.fork(1, bad);
      const merged = new Map<number, number>();
      const failed = new Map<number, number>();
      let queued = new Set(fork.queuedPrs());
      fork.advanceUntil(() => {
        const now = new Set(fork.queuedPrs());
        for (const n of queued) if (!now.has(n)) (fork.isBad(n) ? failed : merged).set(n, minutes(fork.time));
        queued = now;
        return false;
      });
      expect(fork.queuedPrs(), 'every PR leaves the queue').toEqual([]);
      return { merged, failed };
    },
  };
}

/** Every merge of the engine within the model's p10–p90 range of the PR. */
function expectWithinRanges(merged: ReadonlyMap<number, number>, ranges: ReadonlyMap<number, Estimate>): void {
  for (const [n, at] of merged) {
    const range = ranges.get(n);
    const what = `PR ${n} merges at ${at} min; the model's range: ${range ? `${range.p10} to ${range.p90}` : 'none'}`;
    expect(range?.p10, what).toBeLessThanOrEqual(at);
    expect(range?.p90, what).toBeGreaterThanOrEqual(at);
  }
}

describe('the ETA model against the engine', () => {
  it('a plain chain: every estimate is the engine’s merge time, slots taken as runs end', () => {
    // Three slots, a PR every 7 minutes: each takes a slot when one frees, on top of those ahead.
    // PRs 1–3 run 0–30, 7–37, 14–44; PR 4 waits for a slot (30–60), PR 5 (37–67), PR 6 (44–74).
    const c = replay({ concurrency: 3 }, history(8, [], 7));
    c.advanceTo(49); // PR 8 arrives; PRs 4–6 under test, PR 7 waits for a slot (60–90), PR 8 too (67–97)
    const { merged } = c.engine();
    expect(Object.fromEntries(merged)).toEqual({ 4: 60, 5: 67, 6: 74, 7: 90, 8: 97 });
    expect(c.estimates(0, merged.keys())).toEqual(merged);

    c.advanceTo(67); // PRs 6–8 in flight, since 44, 60 and 67
    const later = c.engine().merged;
    expect(Object.fromEntries(later)).toEqual({ 6: 74, 7: 90, 8: 97 });
    expect(c.estimates(0, later.keys())).toEqual(later);
  });

  it('a failure ahead restarts the runs tested on top of it, which keep their slots', () => {
    // Two slots, a PR every 5 minutes: PR 1 under test 0–30, PR 2 5–35, PRs 3 and 4 wait. PR 1 is
    // bad: at 30 it fails, PR 2 restarts (30–60) holding its slot, PR 3 takes PR 1's (30–60) and
    // PR 4 waits for the next one free (60–90).
    const c = replay({ concurrency: 2 }, history(4, [1], 5));
    c.advanceTo(15);
    const { merged } = c.engine();
    const none = c.engine(() => false).merged;
    expect(Object.fromEntries(merged)).toEqual({ 2: 60, 3: 60, 4: 90 });
    expect(Object.fromEntries(none)).toEqual({ 1: 30, 2: 35, 3: 60, 4: 65 });
    // Told one PR in four fails: PR 2's range runs from the engine's future without PR 1's failure
    // to the one with it; PR 4's reaches the one with it.
    const m = c.model(1 / 4);
    expect([m.get(2)?.p10, m.get(2)?.p90]).toEqual([none.get(2), merged.get(2)]);
    expect(m.get(4)?.p90).toBe(merged.get(4));
    expectWithinRanges(merged, m);
  });

  it('each failure ahead that lands in a run restarts it again', () => {
    // Three slots, a PR every 5 minutes: PRs 1–3 under test 0–30, 5–35, 10–40. PRs 1 and 2 are bad:
    // at 30 PR 1 fails and PRs 2 and 3 restart (30–60); at 60 PR 2 fails and PR 3 restarts (60–90).
    const c = replay({ concurrency: 3 }, history(3, [1, 2], 5));
    c.advanceTo(10);
    const { merged } = c.engine();
    const none = c.engine(() => false).merged;
    expect(Object.fromEntries(merged)).toEqual({ 3: 90 });
    expect(none.get(3)).toBe(40);
    // Told one PR in two fails, both failing is one future in four: PR 3's range runs from the
    // engine's future without them to the one with both.
    const m = c.model(1 / 2);
    expect([m.get(3)?.p10, m.get(3)?.p90]).toEqual([none.get(3), merged.get(3)]);
  });

  describe('a batch that fails and is bisected', () => {
    // Batches of 4 on 2 slots: [1–4] and [5–8] start at 0, [9–12] waits. PR 6 is bad: at 30
    // [5–8] fails and splits into [5,6] and [7,8] (bisection runs) while [9–12] starts without
    // them. At 60 [9–12] merges, [5,6] fails and splits, [7,8] passed but was overtaken by [9–12]:
    // it is tested again in the main queue and merges at 90. At 90 PR 6 fails alone; PR 5, passed
    // but overtaken by [7,8], is tested again and merges at 120.
    const queue: Partial<QueueConfig> = { concurrency: 2, batch: true, batchingMinSize: 4 };
    const prs = history(12, [6]);

    it('each round of the bisection: exact once the model knows the part that fails', () => {
      const c = replay(queue, prs);
      c.advanceTo(30);
      const at30 = c.engine();
      expect(Object.fromEntries(at30.merged)).toEqual({ 5: 120, 7: 90, 8: 90, 9: 60, 10: 60, 11: 60, 12: 60 });
      expect(Object.fromEntries(at30.failed)).toEqual({ 6: 90 });
      // The groups behind merge without waiting for the bisection; the cleared half is tested
      // again behind them. PR 5 is held to one bisection round: the model does not know which
      // part fails, at rate 0 both pass, so it has [5,6] cleared at 60 and tested again with
      // [7,8], merged at 90 where the engine merges it at 120.
      const known = new Map([...at30.merged].filter(([n]) => n !== 5));
      expect(c.estimates(0, known.keys())).toEqual(known);
      const five = c.estimates(0, [5]).get(5);
      expect(five).toBeGreaterThanOrEqual(120 - D);
      expect(five).toBeLessThanOrEqual(120);

      c.advanceTo(60); // [5,6] failed: [5] and [6] under test, [7,8] tested again
      const at60 = c.engine().merged;
      expect(Object.fromEntries(at60)).toEqual({ 5: 120, 7: 90, 8: 90 });
      expect(c.estimates(0, at60.keys())).toEqual(at60);

      c.advanceTo(90); // PR 6 failed alone; PR 5 tested again
      const at90 = c.engine().merged;
      expect(Object.fromEntries(at90)).toEqual({ 5: 120 });
      expect(c.estimates(0, at90.keys())).toEqual(at90);
    });

    it('at the failure, told only that one PR in four fails, the model’s ranges hold every merge', () => {
      const c = replay(queue, prs);
      c.advanceTo(30);
      expectWithinRanges(c.engine().merged, c.model(1 / 4));
    });

    it('at the back of a quiet queue, a cleared part’s run is its test', () => {
      // PRs 1 and 2 in one batch, PR 2 bad: at 30 the batch fails and splits; at 60 PR 1 passed
      // with nothing behind that left it out: it merges on that run, it is not tested again.
      const c = replay({ ...queue, batchingMinSize: 2 }, history(2, [2]));
      c.advanceTo(30);
      const { merged } = c.engine();
      expect(Object.fromEntries(merged)).toEqual({ 1: 60 });
      expect(c.estimates(0, [1])).toEqual(merged);
    });
  });

  describe('two lanes in parallel mode', () => {
    // Seed 106 draws the lanes 0, 1, 0, 1, … for PRs 1–8; four slots, two per lane. PR 1 (lane 0)
    // is bad: at 30 it fails and PR 3, tested on top of it since 0, restarts (30–60); lane 1 goes on.
    const queue: Partial<QueueConfig> = { mode: 'parallel', concurrency: 4 };
    const prs = history(8, [1]);

    it('a failure in one lane restarts that lane only: exact once it is known', () => {
      const c = replay(queue, prs, 2, 106);
      c.advanceTo(0);
      expect(queueOf(c.sim).entries.map((e) => String(e.impactedTargets))).toEqual([
        'lane-0',
        'lane-1',
        'lane-0',
        'lane-1',
        'lane-0',
        'lane-1',
        'lane-0',
        'lane-1',
      ]);
      c.advanceTo(30);
      const { merged } = c.engine();
      expect(Object.fromEntries(merged)).toEqual({ 3: 60, 5: 60, 6: 60, 7: 90, 8: 60 });
      expect(c.estimates(0, merged.keys())).toEqual(merged);
    });

    it('before the failure: lane 1 exact, lane 0 within the range the failure rate gives', () => {
      const c = replay(queue, prs, 2, 106);
      c.advanceTo(0);
      const { merged } = c.engine();
      const none = c.engine(() => false).merged;
      expect(Object.fromEntries(merged)).toEqual({ 2: 30, 3: 60, 4: 30, 5: 60, 6: 60, 7: 90, 8: 60 });
      expect(Object.fromEntries(none)).toEqual({ 1: 30, 2: 30, 3: 30, 4: 30, 5: 60, 6: 60, 7: 60, 8: 60 });
      // Lane 1 has no bad PR: at rate 0 its PRs are exact, PR 1's failure notwithstanding.
      const lane1 = new Map([...merged].filter(([n]) => n % 2 === 0));
      expect(c.estimates(0, lane1.keys())).toEqual(lane1);
      // One PR in four bad: PR 1 failing (and PR 3 restarting) is a likely future. PR 3 has only
      // PR 1 ahead in its lane: its range runs from the engine's future without the failure to the
      // one with it. PR 2 heads lane 1: nothing lane 0 does moves it, in the engine or the model.
      const m = c.model(1 / 4);
      expect([m.get(3)?.p10, m.get(3)?.p90]).toEqual([none.get(3), merged.get(3)]);
      expect(m.get(2)).toEqual({ estimate: 30, p10: 30, p90: 30 });
      expectWithinRanges(merged, m);
    });
  });
});
