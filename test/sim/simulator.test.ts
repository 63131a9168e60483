/** The simulator end to end: the real engine, the fake forge and CI, the figures it reports. */
import { describe, expect, it } from 'vitest';
import { defaultOptions, validateOptions, type SimulationOptions } from '../../src/sim/options.js';
import { simulate } from '../../src/sim/simulator.js';

/** The estimates at submission take a third to a half of a run: measured only where a test reads them. */
const options = (over: Partial<SimulationOptions>): SimulationOptions => ({
  ...defaultOptions(),
  measureEta: false,
  ...over,
});
const withoutWallTime = <T extends { wallMs: number }>(s: T) => ({ ...s, wallMs: 0 });

describe('simulate', () => {
  it('is reproducible: the same seed gives the same figures, another seed other ones', () => {
    const o = options({
      seed: 5,
      arrivals: { kind: 'poisson', perHour: 6 },
      maxPrs: 150,
      flakeRate: 0.02,
      queue: { concurrency: 4 },
      measureEta: true,
    });
    const a = simulate(o);
    const b = simulate(o);
    expect(withoutWallTime(a.summary)).toEqual(withoutWallTime(b.summary));
    expect(a.series).toEqual(b.series);
    expect(withoutWallTime(simulate({ ...o, seed: 6 }).summary)).not.toEqual(withoutWallTime(a.summary));
  });

  it('compares the merge time estimated at submission with the real one: exact when nothing fails and CI time is fixed', () => {
    const run = (failureRate: number, measureEta = true) =>
      simulate(
        options({
          arrivals: { kind: 'poisson', perHour: 8 },
          maxPrs: 200,
          failureRate,
          ci: { kind: 'fixed', minutes: 20 },
          queue: { concurrency: 2 },
          measureEta,
        }),
      ).summary;
    const clean = run(0);
    // The first PR has no finished run to estimate from; every later one has one.
    expect(clean.eta!.p50).toBeLessThan(1e-6); // the estimate is rounded to the millisecond
    expect(clean.eta!.p90).toBeLessThan(1e-6);
    expect(clean.eta!.estimated).toBeGreaterThan(100);
    // Failures restart PRs behind them: some estimates are short, and the error says so.
    const failing = run(0.2);
    expect(failing.eta!.p90).toBeGreaterThan(0.1);
    // Not asked for, nothing is estimated; the rest of the figures are the same.
    const unmeasured = run(0.2, false);
    expect(unmeasured.eta).toBeNull();
    expect(withoutWallTime({ ...unmeasured, eta: failing.eta })).toEqual(withoutWallTime(failing));
  });

  it('a serial queue with nothing failing merges exactly one PR per CI time, one run each', () => {
    const { summary } = simulate(
      options({
        arrivals: { kind: 'saturated', backlog: 5 },
        maxPrs: 100,
        failureRate: 0,
        ci: { kind: 'fixed', minutes: 20 },
        queue: { concurrency: 1 },
      }),
    );
    expect(summary.mergesPerHour).toBeCloseTo(3, 6);
    expect(summary.ciRunsPerMerge).toBe(1);
    expect(summary.ciHoursPerMerge).toBeCloseTo(20 / 60, 6);
    expect(summary.restarts).toBe(0);
    expect(summary.prs).toEqual({ arrived: 100, merged: 100, failedBad: 0, failedGood: 0, mergedBad: 0, left: 0 });
  });

  it('on a quiet queue a PR waits exactly its CI time, and throughput follows arrivals', () => {
    const { summary } = simulate(
      options({
        arrivals: { kind: 'poisson', perHour: 0.5 },
        maxPrs: 200,
        failureRate: 0,
        ci: { kind: 'fixed', minutes: 10 },
        queue: { concurrency: 3 },
      }),
    );
    expect(summary.timeInQueueMinutes!.p50).toBeCloseTo(10, 6);
    expect(summary.timeInQueueMinutes!.max).toBeCloseTo(10, 6);
    expect(summary.mergesPerHour).toBeGreaterThan(0.4);
    expect(summary.mergesPerHour).toBeLessThan(0.6);
  });

  it('catches every bad PR and merges every good one; failures restart the runs behind them', () => {
    const { summary } = simulate(
      options({
        seed: 2,
        arrivals: { kind: 'saturated', backlog: 20 },
        maxPrs: 400,
        failureRate: 0.2,
        queue: { concurrency: 6 },
      }),
    );
    expect(summary.prs.mergedBad).toBe(0);
    expect(summary.prs.failedGood).toBe(0);
    expect(summary.prs.failedBad + summary.prs.merged).toBe(400);
    expect(summary.prs.failedBad).toBeGreaterThan(50);
    expect(summary.restarts).toBeGreaterThan(0);
    expect(summary.ciRunsPerMerge).toBeGreaterThan(1.2);
    expect(summary.invariantBreaches).toBe(0);
  });

  it('flaky runs reject good PRs unless optimistic merging and a pending failure depth vouch for them', () => {
    const base = options({
      seed: 3,
      arrivals: { kind: 'saturated', backlog: 20 },
      maxPrs: 400,
      failureRate: 0.02,
      flakeRate: 0.1,
    });
    const off = simulate({ ...base, queue: { concurrency: 5 } }).summary;
    const on = simulate({
      ...base,
      queue: { concurrency: 5, canOptimisticallyMerge: true, pendingFailureDepth: 1 },
    }).summary;
    expect(off.prs.failedGood).toBeGreaterThan(30);
    expect(on.prs.failedGood).toBeLessThan(off.prs.failedGood / 3);
    expect(on.mergesPerHour).toBeGreaterThan(off.mergesPerHour);
    expect(on.prs.mergedBad).toBe(0);
    expect(on.invariantBreaches).toBe(0);
  });

  it('batches: one run tests a whole batch', () => {
    const { summary } = simulate(
      options({
        arrivals: { kind: 'saturated', backlog: 40 },
        maxPrs: 400,
        failureRate: 0,
        queue: { concurrency: 3, batch: true, batchingMinSize: 4 },
      }),
    );
    expect(summary.ciRunsPerMerge).toBeCloseTo(0.25, 6);
    expect(summary.mergesPerHour).toBeCloseTo((3 * 4 * 60) / 30, 6);
    expect(summary.bisectionRuns).toBe(0);
  });

  it('batches with bisection: bisection runs find the bad PRs, the good ones merge', () => {
    const { summary } = simulate(
      options({
        seed: 4,
        arrivals: { kind: 'saturated', backlog: 40 },
        maxPrs: 400,
        failureRate: 0.05,
        queue: { concurrency: 3, batch: true, batchingMinSize: 4 },
      }),
    );
    expect(summary.bisectionRuns).toBeGreaterThan(0);
    expect(summary.prs.mergedBad).toBe(0);
    expect(summary.prs.failedGood).toBe(0);
    expect(summary.prs.merged + summary.prs.failedBad).toBe(400);
    expect(summary.invariantBreaches).toBe(0);
  });

  it('adaptive mode: the report tells the window and batch size it ended with, within their bounds', () => {
    const base = options({ seed: 4, arrivals: { kind: 'saturated', backlog: 60 }, maxPrs: 400, failureRate: 0.05 });
    const queue = { concurrency: 8, batch: true, batchingMinSize: 8 };
    expect(simulate({ ...base, queue }).summary.adaptive).toBeNull();
    const { summary } = simulate({ ...base, queue: { ...queue, adaptiveMode: 'on', adaptiveMinConcurrency: 3 } });
    const a = summary.adaptive!;
    expect(a.concurrency).toBeGreaterThanOrEqual(3);
    expect(a.concurrency).toBeLessThanOrEqual(8);
    // About 5% of conclusions failed: p̂ > 0, and the batch size follows it (binary splitting's size).
    expect(a.failureRate).toBeGreaterThan(0);
    expect(a.failureRate).toBeLessThan(0.2);
    expect(a.batchSize).toBe(Math.min(8, 2 ** Math.floor(Math.log2((1 - a.failureRate) / a.failureRate))));
    expect(summary.prs).toMatchObject({ mergedBad: 0, failedGood: 0, left: 0 });
    expect(summary.invariantBreaches).toBe(0);
  });

  it('parallel mode: disjoint lanes fail and merge independently, so four lanes merge about four times as much', () => {
    const lane = (lanes: number) =>
      simulate(
        options({
          seed: 8,
          lanes,
          arrivals: { kind: 'saturated', backlog: 12 * lanes },
          maxPrs: 100 * lanes,
          failureRate: 0.05,
          queue: { mode: 'parallel', concurrency: 4 * lanes },
        }),
      ).summary;
    const one = lane(1);
    const four = lane(4);
    expect(four.mergesPerHour / one.mergesPerHour).toBeGreaterThan(3.3);
    // A failure restarts only its own lane: about as many restarts per failure as in a lone lane.
    const restartsPerFailure = (s: typeof one) => s.restarts / s.prs.failedBad;
    expect(restartsPerFailure(four)).toBeLessThan(1.5 * restartsPerFailure(one));
    expect(four.prs.mergedBad).toBe(0);
    expect(four.invariantBreaches).toBe(0);
  });

  it('CI time follows its distribution: uniform jitter and log-normal keep the mean', () => {
    const run = (ci: SimulationOptions['ci']) =>
      simulate(
        options({
          seed: 9,
          arrivals: { kind: 'saturated', backlog: 3 },
          maxPrs: 400,
          failureRate: 0,
          ci,
          queue: { concurrency: 1 },
        }),
      ).summary;
    const uniform = run({ kind: 'uniform', minutes: 30, jitter: 20 });
    const lognormal = run({ kind: 'lognormal', minutes: 30, sigma: 0.5 });
    for (const s of [uniform, lognormal]) {
      expect(s.ciHoursPerMerge * 60).toBeGreaterThan(27);
      expect(s.ciHoursPerMerge * 60).toBeLessThan(33);
    }
    const fixed = run({ kind: 'fixed', minutes: 30 });
    expect(fixed.timeInQueueMinutes!.max).toBeGreaterThan(uniform.timeInQueueMinutes!.p50);
  });

  it('a run longer than the testing timeout fails its PR', () => {
    const { summary } = simulate(
      options({
        arrivals: { kind: 'poisson', perHour: 1 },
        maxPrs: 10,
        failureRate: 0,
        ci: { kind: 'fixed', minutes: 90 },
        queue: { testingTimeoutMinutes: 60 },
      }),
    );
    expect(summary.prs.merged).toBe(0);
    expect(summary.prs.failedGood).toBe(10);
  });

  it('--hours ends arrivals at that simulated time', () => {
    const { summary } = simulate(
      options({ arrivals: { kind: 'poisson', perHour: 20 }, maxPrs: null, hours: 10, queue: { concurrency: 5 } }),
    );
    expect(summary.prs.arrived).toBeGreaterThan(150);
    expect(summary.prs.arrived).toBeLessThan(250);
    expect(summary.warmupMinutes / 60 + summary.windowHours).toBeLessThanOrEqual(10);
  });

  it('replays a history: recorded arrivals, CI times and outcomes', () => {
    const prs = [
      { arrivalMinutes: 0, ciMinutes: 12, bad: false },
      { arrivalMinutes: 60, ciMinutes: 7, bad: true },
      { arrivalMinutes: 120, ciMinutes: 25, bad: false },
    ];
    const { summary } = simulate(
      options({ arrivals: { kind: 'replay', prs }, maxPrs: null, failureRate: 0, warmupMinutes: 0 }),
    );
    expect(summary.prs).toEqual({ arrived: 3, merged: 2, failedBad: 1, failedGood: 0, mergedBad: 0, left: 0 });
    expect(summary.timeInQueueMinutes).toMatchObject({ p50: 12, max: 25 });
    // The last PR arrived at 120 min and its CI took 25.
    expect(summary.simulatedHours * 60).toBeCloseTo(145, 6);
  });

  it('refuses options it cannot simulate, naming the option', () => {
    const bad: [Partial<SimulationOptions>, RegExp][] = [
      [{ arrivals: { kind: 'poisson', perHour: 0 } }, /--rate/],
      [{ failureRate: 1.5 }, /--failure-rate/],
      [{ flakeRate: -0.1 }, /--flake-rate/],
      [{ ci: { kind: 'uniform', minutes: 10, jitter: 10 } }, /--ci-jitter/],
      [{ lanes: 3 }, /--mode parallel/],
      [{ maxPrs: null, hours: null }, /--prs or --hours/],
      [{ queue: { concurrency: 0 } }, /--concurrency: concurrency must be an integer from 1 to 1000/],
      [{ queue: { pendingFailureDepth: -1 } }, /--pfd/],
    ];
    for (const [over, message] of bad) expect(validateOptions(options(over))).toMatch(message);
    expect(validateOptions(options({}))).toBeNull();
    expect(() => simulate(options({ failureRate: 2 }))).toThrow(/--failure-rate/);
  });
});
