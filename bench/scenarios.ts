/**
 * The workload the queue benchmarks share (bench:queue, bench:eta-bound): T = 30 min fixed CI time,
 * 5% bad PRs, seed 1, 4,000 PRs, the queue kept full (a backlog of two chains' worth of PRs) unless
 * told otherwise, and "under load" meaning Poisson arrivals at 80% of the capacity measured.
 */
import type { QueueConfig } from '../src/engine/index.js';
import { defaultOptions, type SimulationOptions } from '../src/sim/options.js';

export const T = 30;
export const SEED = 1;
export const PRS = 4000;
export const LOAD = 0.8;

/** The benchmarks' simulation of `queue`, with `over` replacing any of the workload's options. */
export function scenarioOptions(queue: Partial<QueueConfig>, over: Partial<SimulationOptions> = {}): SimulationOptions {
  const batch = queue.batch ? (queue.batchingMinSize ?? 4) : 1;
  return {
    ...defaultOptions(),
    seed: SEED,
    failureRate: 0.05,
    ci: { kind: 'fixed', minutes: T },
    maxPrs: PRS,
    arrivals: { kind: 'saturated', backlog: 2 * (queue.concurrency ?? 1) * batch + 20 },
    ...over,
    queue,
  };
}

/** PRs per hour at LOAD × a capacity in merges per hour (two decimals, as the benchmarks print it). */
export const loadRate = (capacity: number): number => +(LOAD * capacity).toFixed(2);
