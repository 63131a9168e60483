/**
 * Adaptive mode (`adaptiveMode: 'on'`, a greenline extension, off by default): the queue sizes its
 * speculation and its batches from what it measures instead of from fixed settings
 * (QUEUE-THEORY §3.2 consequence 2, §3.6).
 *
 * Concurrency is a window like Zuul's (additive increase, multiplicative decrease). The main runs in
 * flight are limited by a window w instead of by `concurrency`, which becomes its ceiling:
 *
 *   floor = min(adaptiveMinConcurrency, concurrency)     ceiling = concurrency
 *   w starts at the ceiling;  w ← min(ceiling, w + 1) per PR merged (a batch of B adds B);
 *   w ← max(floor, ⌊w · (1 − q̂/2)⌋) per group whose run failed on its own (a PR that fails, a batch that goes to bisection),
 *   q̂ = 1 − (1 − p̂)^B, the share of groups of B PRs that fail at the measured failure rate p̂ (below)
 *
 * It starts at the ceiling so that turning the mode on never slows a healthy queue down: with no
 * failure it stays what the static setting gave, and it backs off only once failures show the
 * speculation behind them being thrown away. It grows per merged PR, as Zuul's grows per merged change,
 * and shrinks per failed group, the event that throws away the runs built on it: a failed batch shrinks
 * it once, not again for the culprits its bisection finds. How far it shrinks follows how often groups
 * fail, as DCTCP's window shrinks by half the share of its packets that met congestion: a failure that
 * is rare for the groups being formed says little about the window and takes little off it, one of
 * many takes up to half. A fixed share taken off per failure shrank it too far with batches, which
 * fail far more often than single PRs (q̂ ≈ 34% for batches of 8 at p̂ = 5%) while a failed batch is
 * bisected beside the window, not inside it. In the simulator at p = 5% with batches of up to 8,
 * halving reached about 90% of the best fixed setting's merges per hour; against the better
 * of the fixed N = 15 and N = 20 with batches of 8, three quarters reached 89.5–104.8% over seeds 1–8
 * (98.0% on average) and 1 − q̂/2 (×0.83 at q̂ = 34%) 93.8–104.0% (98.8%), at a few more CI runs
 * per merge (docs/simulator.md).
 * With nothing measured yet (p̂ = 0) a first failure leaves it as it is. The floor keeps some
 * speculation after a streak of failures (Zuul keeps 3); it defaults to 2.
 *
 * Batch size (with `batch` on) follows the measured failure rate p̂, the exponentially weighted mean
 * of the queue's conclusions, x = 1 for a PR that FAILED and 0 for one the queue merged, weight 1/50
 * (about the last 50 conclusions):
 *
 *   p̂ ← p̂ + (x − p̂) / 50, from p̂ = 0
 *
 * The memory is long because the size changes at thresholds (p̂ > 1/9 halves 8 to 4): with weight
 * 1/20, p̂'s standard deviation at p = 5% is about 3.5 points, and two or three failures close together
 * (a bisected batch often yields one, the PRs behind it another) pushed p̂ past 11% for 7.6% of the
 * groups formed in the simulator, each then half the size the failure rate called for. With 1/50 the
 * deviation is about 2.2 points and that share 2.3%; a lasting change of the failure rate still shows
 * within a few dozen conclusions (docs/simulator.md).
 *   B = batchingMinSize while p̂ = 0 (no failure measured yet), else clamp(2^⌊log₂((1 − p̂)/p̂)⌋, 1, batchingMinSize)
 *
 * 2^⌊log₂((1 − p)/p)⌋ is the group size of binary splitting (Hwang's generalised binary splitting),
 * the size that minimises test runs per PR when failed batches are halved again and again, as
 * bisection does (§3.1 "nested splitting"): p̂ = 5% → 16, 10% → 8, 20% → 4, 30% → 2, ≥ 40% → 1. The
 * simulator agrees: at p = 5–20% batches of 8 merge more, at fewer CI runs per PR, than batches of 4
 * (docs/simulator.md). The setting stays the upper bound. Batches of B form while the queue is backed
 * up (at least B PRs wait to start); with fewer it is nearly empty and each PR starts alone. No batch
 * waits to fill (`batchingMaxWaitTimeMinutes` does not apply): how many PRs wait is what decides the
 * size. Bisection keeps its own budget (`bisectionConcurrency`).
 *
 * Turning the mode off forgets the measurements; turning it on again starts afresh.
 */
import type { Draft } from './draft.js';
import type { AdaptiveState, EngineInternal } from './working-state.js';
import type { QueueConfig, QueueSnapshot } from './types.js';

export const DEFAULT_ADAPTIVE_MIN_CONCURRENCY = 2;
/** Weight of each new conclusion in p̂. */
const FAILURE_RATE_WEIGHT = 1 / 50;

/** What adaptive mode currently does, for operators (getQueue). */
export interface AdaptiveStatus {
  /** The window: main runs allowed in flight at once. */
  concurrency: number;
  /** PRs per batch while the queue is backed up; 1 when `batch` is off. */
  batchSize: number;
  /** p̂, the measured failure rate. */
  failureRate: number;
}

export const isAdaptive = (c: QueueConfig): boolean => c.adaptiveMode === 'on';

function floorOf(c: QueueConfig): number {
  return Math.min(c.adaptiveMinConcurrency ?? DEFAULT_ADAPTIVE_MIN_CONCURRENCY, c.concurrency);
}

/** The measurements, within the current floor and ceiling; fresh ones when none were made yet. */
function stateOf(c: QueueConfig, stored: AdaptiveState | null): AdaptiveState {
  const window = stored === null ? c.concurrency : Math.max(floorOf(c), Math.min(c.concurrency, stored.window));
  return { window, failureRate: stored?.failureRate ?? 0 };
}

/** B for a measured failure rate: the batch size used while the queue is backed up. */
function targetBatchSize(c: QueueConfig, failureRate: number): number {
  if (failureRate <= 0) return c.batchingMinSize;
  const splitting = 2 ** Math.floor(Math.log2(Math.max(1, (1 - failureRate) / failureRate)));
  return Math.max(1, Math.min(c.batchingMinSize, splitting));
}

/** How many main runs may be in flight: the window in adaptive mode, `concurrency` otherwise. */
export function mainConcurrency(d: Draft): number {
  return isAdaptive(d.config) ? stateOf(d.config, d.internal.adaptive).window : d.config.concurrency;
}

/**
 * How many PRs a new group takes (with `batch` on): `batchingMinSize`, or in adaptive mode B when
 * at least B PRs wait to start (`waiting` counts them), else 1.
 */
export function batchSize(d: Draft, waiting: () => number): number {
  if (!isAdaptive(d.config)) return d.config.batchingMinSize;
  const size = targetBatchSize(d.config, stateOf(d.config, d.internal.adaptive).failureRate);
  return size > 1 && waiting() >= size ? size : 1;
}

/** The queue merged `prs` PRs: the window grows by one per PR, and p̂ takes in a 0 per PR. */
export function recordMerges(d: Draft, prs: number): void {
  if (!isAdaptive(d.config) || prs === 0) return;
  const s = stateOf(d.config, d.internal.adaptive);
  let failureRate = s.failureRate;
  for (let i = 0; i < prs; i++) failureRate -= failureRate * FAILURE_RATE_WEIGHT;
  d.internal.adaptive = { window: Math.min(d.config.concurrency, s.window + prs), failureRate };
}

/** A PR FAILED: p̂ takes in a 1. */
export function recordFailure(d: Draft): void {
  if (!isAdaptive(d.config)) return;
  const s = stateOf(d.config, d.internal.adaptive);
  d.internal.adaptive = { window: s.window, failureRate: s.failureRate + (1 - s.failureRate) * FAILURE_RATE_WEIGHT };
}

/** A group's run failed on its own (failure.ts): the window shrinks by half the share of groups that fail, q̂. */
export function recordGroupFailure(d: Draft): void {
  if (!isAdaptive(d.config)) return;
  const s = stateOf(d.config, d.internal.adaptive);
  const size = d.config.batch ? targetBatchSize(d.config, s.failureRate) : 1;
  const groupFailureRate = 1 - (1 - s.failureRate) ** size;
  d.internal.adaptive = {
    window: Math.max(floorOf(d.config), Math.floor(s.window * (1 - groupFailureRate / 2))),
    failureRate: s.failureRate,
  };
}

/** After a settings change: the measurements are kept within the new bounds, or forgotten when off. */
export function adaptToConfig(d: Draft): void {
  const stored = d.internal.adaptive;
  if (stored === null) return;
  d.internal.adaptive = isAdaptive(d.config) ? stateOf(d.config, stored) : null;
}

/** What adaptive mode does in this queue now; null when it is off. */
export function adaptiveStatus(snapshot: QueueSnapshot): AdaptiveStatus | null {
  const c = snapshot.config;
  if (!isAdaptive(c)) return null;
  const s = stateOf(c, (snapshot.internal as Partial<EngineInternal>).adaptive ?? null);
  return {
    concurrency: s.window,
    batchSize: c.batch ? targetBatchSize(c, s.failureRate) : 1,
    failureRate: s.failureRate,
  };
}
