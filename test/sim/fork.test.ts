/** Forking a simulation: the copy goes on from the same queue, runs and agenda, with the badness it is given. */
import { describe, expect, it } from 'vitest';
import type { QueueConfig } from '../../src/engine/index.js';
import { defaultOptions } from '../../src/sim/options.js';
import type { ReplayPr } from '../../src/sim/replay-csv.js';
import { Simulation } from '../../src/sim/simulator.js';

/** A replayed history: arrivals, CI times and bad PRs fixed, so only what a fork is given can change its future. */
const history: ReplayPr[] = Array.from({ length: 80 }, (_, i) => ({
  arrivalMinutes: 4 * i,
  ciMinutes: 20 + ((i * 7) % 15),
  bad: i % 9 === 4,
}));

const start = (queue: Partial<QueueConfig>, prs = history) =>
  Simulation.start({
    ...defaultOptions(),
    arrivals: { kind: 'replay', prs },
    maxPrs: null,
    measureEta: false,
    queue,
  });

/** When each PR leaves the queue (merged or failed), from here to the end. */
function exits(sim: Simulation): Map<number, number> {
  const out = new Map<number, number>();
  let queued = new Set(sim.queuedPrs());
  sim.advanceUntil(() => {
    const now = new Set(sim.queuedPrs());
    for (const n of queued) if (!now.has(n)) out.set(n, sim.time);
    queued = now;
    return false;
  });
  return out;
}

describe('Simulation.fork', () => {
  const batched: Partial<QueueConfig> = { concurrency: 4, batch: true, batchingMinSize: 2 };

  it('with every PR as it was, replays the same future: runs under way, agenda, branches and batches carried over', () => {
    const original = start(batched);
    original.advanceUntil(() => original.queued(30));
    const fork = original.fork(99, (n) => original.isBad(n));
    const forked = exits(fork);
    const went = exits(original);
    expect(forked.size).toBeGreaterThan(40);
    expect(forked).toEqual(went);
  });

  it('leaves the original as it was, whatever the fork is given', () => {
    const untouched = exits(start(batched));
    const original = start(batched);
    original.advanceUntil(() => original.queued(30));
    exits(original.fork(7, () => true));
    const after = exits(original);
    for (const [n, at] of after) expect(untouched.get(n)).toBe(at);
  });

  it('makes a PR under test bad: its run fails when it ends, and the runs behind it start again', () => {
    const original = start(
      { concurrency: 4 },
      history.map((pr) => ({ ...pr, bad: false })),
    );
    original.advanceUntil(() => original.queued(30));
    const [target, ...behind] = original.queuedPrs(); // four under test at once: the first four
    const truth = exits(original.fork(1, (n) => original.isBad(n)));
    const fork = original.fork(1, (n) => n === target || original.isBad(n));
    expect(fork.isBad(target)).toBe(true);
    const bad = exits(fork);
    expect(bad.get(target)).toBe(truth.get(target)); // the run ends when it would have: failed instead of merged
    for (const n of behind.slice(0, 3)) expect(bad.get(n)!).toBeGreaterThan(truth.get(n)!);
  });
});
