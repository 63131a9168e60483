/**
 * What a simulation is asked to do: the workload (arrivals, failure and flake rates, CI time, lanes)
 * and the queue settings under test. `validateOptions` names the first bad option in words the
 * command line shares (`--rate`, `--failure-rate`, …).
 */
import { validateConfigPatch, type QueueConfig } from '../engine/index.js';
import type { CiDuration } from './simulated-ci.js';
import type { ReplayPr } from './replay-csv.js';

export type Arrivals =
  /** Poisson arrivals at `perHour` PRs per hour. */
  | { kind: 'poisson'; perHour: number }
  /** A PR arrives whenever fewer than `backlog` PRs are in the queue: the queue is never empty. */
  | { kind: 'saturated'; backlog: number }
  /** A team's own history: arrival offsets, CI times and outcomes (replay-csv.ts). */
  | { kind: 'replay'; prs: ReplayPr[] };

export type RiskModel = 'uniform' | 'uneven' | 'truth';
export const RISK_MODELS: readonly RiskModel[] = ['uniform', 'uneven', 'truth'];

export interface SimulationOptions {
  seed: number;
  arrivals: Arrivals;
  /** Stop arrivals after this many PRs (null: no limit; replay stops at its last row anyway). */
  maxPrs: number | null;
  /** Stop arrivals after this many simulated hours (null: no limit). */
  hours: number | null;
  /** Probability that a PR's code is bad: every run that includes it fails. Replay: from the CSV. */
  failureRate: number;
  /**
   * How the risk of bad code is spread over PRs: `uniform`, every PR bad with `failureRate`, one
   * author; `uneven`, a fifth of the authors write 70% of the bad PRs (workload.ts); `truth`, the
   * PRs of `uneven` with authors that tell which PRs are bad (the bound of perfect risk knowledge).
   */
  risk: RiskModel;
  /** Probability that a run fails spuriously. */
  flakeRate: number;
  ci: CiDuration;
  /** Impacted-target lanes (parallel mode): each PR gets the target of one lane, uniformly. */
  lanes: number;
  /** Figures leave out the first minutes (the queue filling up); null = twice the mean CI time. */
  warmupMinutes: number | null;
  /** Queue settings (contract §4 names); the rest are the engine's defaults. */
  queue: Partial<QueueConfig>;
  /**
   * Estimate each PR's merge time at submission (queueOutlook, as a client would read it) for the
   * estimate-error figures (`eta`). The sampled estimate takes from a third to a half of a run's
   * time; without it `eta` is null.
   */
  measureEta: boolean;
}

export const DEFAULT_PR_COUNT = 1000;

export function defaultOptions(): SimulationOptions {
  return {
    seed: 1,
    arrivals: { kind: 'poisson', perHour: 10 },
    maxPrs: DEFAULT_PR_COUNT,
    hours: null,
    failureRate: 0.05,
    risk: 'uniform',
    flakeRate: 0,
    ci: { kind: 'fixed', minutes: 30 },
    lanes: 1,
    warmupMinutes: null,
    queue: {},
    measureEta: true,
  };
}

const probability = (v: number): boolean => Number.isFinite(v) && v >= 0 && v <= 1;
const positive = (v: number): boolean => Number.isFinite(v) && v > 0;

export function validateOptions(o: SimulationOptions): string | null {
  if (!Number.isInteger(o.seed)) return `--seed must be an integer, got ${o.seed}`;
  const a = o.arrivals;
  if (a.kind === 'poisson' && !positive(a.perHour))
    return `--rate must be a number of PRs per hour > 0, got ${a.perHour}`;
  if (a.kind === 'saturated' && !(Number.isInteger(a.backlog) && a.backlog >= 1))
    return `--backlog must be an integer >= 1, got ${a.backlog}`;
  if (a.kind === 'replay' && a.prs.length === 0) return 'the replay file has no PRs';
  if (o.maxPrs !== null && !(Number.isInteger(o.maxPrs) && o.maxPrs >= 1))
    return `--prs must be an integer >= 1, got ${o.maxPrs}`;
  if (o.hours !== null && !positive(o.hours)) return `--hours must be > 0, got ${o.hours}`;
  if (a.kind !== 'replay' && o.maxPrs === null && o.hours === null)
    return 'give --prs or --hours: the simulation needs an end';
  if (!probability(o.failureRate)) return `--failure-rate must be a probability between 0 and 1, got ${o.failureRate}`;
  if (!RISK_MODELS.includes(o.risk)) return `--risk must be one of ${RISK_MODELS.join(', ')}, got ${o.risk}`;
  if (a.kind === 'replay' && o.risk !== 'uniform')
    return '--risk does not apply to --replay: its outcome column says which PRs fail';
  if (!probability(o.flakeRate)) return `--flake-rate must be a probability between 0 and 1, got ${o.flakeRate}`;
  if (!positive(o.ci.minutes)) return `--ci-minutes must be > 0, got ${o.ci.minutes}`;
  if (o.ci.kind === 'uniform' && !(Number.isFinite(o.ci.jitter) && o.ci.jitter >= 0 && o.ci.jitter < o.ci.minutes)) {
    return `--ci-jitter must be >= 0 and below --ci-minutes (${o.ci.minutes}), got ${o.ci.jitter}`;
  }
  if (o.ci.kind === 'lognormal' && !positive(o.ci.sigma)) return `--ci-sigma must be > 0, got ${o.ci.sigma}`;
  if (!(Number.isInteger(o.lanes) && o.lanes >= 1)) return `--lanes must be an integer >= 1, got ${o.lanes}`;
  if (o.lanes > 1 && o.queue.mode !== 'parallel')
    return '--lanes above 1 needs --mode parallel: lanes are impacted targets';
  if (o.warmupMinutes !== null && !(Number.isFinite(o.warmupMinutes) && o.warmupMinutes >= 0)) {
    return `--warmup must be a number of minutes >= 0, got ${o.warmupMinutes}`;
  }
  for (const [key, value] of Object.entries(o.queue)) {
    const bad = validateConfigPatch({ [key]: value });
    if (bad) return FLAG_OF[key] ? `${FLAG_OF[key]}: ${bad}` : bad;
  }
  return null;
}

/** The command-line flag of each queue setting it sets. */
const FLAG_OF: Record<string, string> = {
  mode: '--mode',
  concurrency: '--concurrency',
  batch: '--batch',
  batchingMinSize: '--batch-size',
  batchingMaxWaitTimeMinutes: '--batch-wait',
  bisectionConcurrency: '--bisection-concurrency',
  optimizationMode: '--skip-redundant-tests',
  canOptimisticallyMerge: '--optimistic',
  pendingFailureDepth: '--pfd',
  testingTimeoutMinutes: '--timeout',
  adaptiveMode: '--adaptive',
  adaptiveMinConcurrency: '--adaptive-min-concurrency',
  ciRetries: '--ci-retries',
  riskAwareBatching: '--no-risk-aware',
};
