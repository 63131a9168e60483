/**
 * `greenline simulate`: runs the real queue engine against a simulated forge and CI on a virtual
 * clock, and reports throughput, time in queue, CI cost and restarts (docs/simulator.md).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { QueueConfig } from '../engine/index.js';
import type { CiDuration } from '../sim/simulated-ci.js';
import {
  defaultOptions,
  type RiskModel,
  DEFAULT_PR_COUNT,
  validateOptions,
  type Arrivals,
  type SimulationOptions,
} from '../sim/options.js';
import { parseReplayCsv, ReplayCsvError } from '../sim/replay-csv.js';
import { describeQueue, describeWorkload, formatReport } from '../sim/report.js';
import { simulate } from '../sim/simulator.js';
import { renderChart } from '../sim/svg-chart.js';
import { UsageError } from './usage-error.js';

interface SimulateFlags {
  seed?: string;
  rate?: string;
  saturate?: boolean;
  backlog?: string;
  replay?: string;
  prs?: string;
  hours?: string;
  failureRate?: string;
  flakeRate?: string;
  ciMinutes?: string;
  ciJitter?: string;
  ciSigma?: string;
  lanes?: string;
  warmup?: string;
  mode?: 'single' | 'parallel';
  concurrency?: string;
  batch?: boolean;
  batchSize?: string;
  batchWait?: string;
  bisectionConcurrency?: string;
  skipRedundantTests?: boolean;
  optimistic?: boolean;
  pfd?: string;
  timeout?: string;
  adaptive?: boolean;
  adaptiveMinConcurrency?: string;
  ciRetries?: string;
  risk: string;
  riskAware: boolean;
  eta: boolean;
  json?: boolean;
  svg?: string;
}

export function simulateCommand(): Command {
  return new Command('simulate')
    .description(
      'simulate the merge queue (the real engine, a fake forge and CI, a virtual clock) and report what it achieves',
    )
    .option('--seed <n>', 'seed of the random numbers: the same seed gives the same run', '1')
    .option('--rate <prs-per-hour>', 'PR arrivals per hour, Poisson (default 10)')
    .option('--saturate', 'keep the queue full instead: a PR arrives whenever fewer than --backlog are queued')
    .option('--backlog <n>', 'queue size kept by --saturate (default 3 × concurrency × batch size, at least 10)')
    .option('--replay <file.csv>', 'replay a history: arrival, ci_minutes, outcome per PR (see docs/simulator.md)')
    .option('--prs <count>', `stop arrivals after this many PRs (default ${DEFAULT_PR_COUNT}, or all of --replay)`)
    .option('--hours <h>', 'stop arrivals after this many simulated hours')
    .option(
      '--failure-rate <p>',
      'probability that a PR is bad (fails every run that includes it), e.g. 0.05 or 5% (default 5%)',
    )
    .option(
      '--risk <model>',
      'how bad PRs are spread: uniform (every PR alike), uneven (a fifth of the authors write 70% of the bad PRs), truth (uneven, with authors that tell which PRs are bad)',
      'uniform',
    )
    .option('--flake-rate <f>', 'probability that a run fails spuriously, e.g. 0.03 or 3%', '0')
    .option('--ci-minutes <m>', 'mean CI time of a run, in minutes', '30')
    .option('--ci-jitter <m>', 'CI time uniform in ci-minutes ± this many minutes')
    .option('--ci-sigma <s>', 'CI time log-normal with this shape σ (mean stays --ci-minutes)')
    .option(
      '--lanes <k>',
      "impacted-target lanes; each PR gets one lane's target (parallel mode, implied above 1)",
      '1',
    )
    .option('--warmup <minutes>', 'leave the first minutes out of the figures (default 2 × --ci-minutes)')
    .addOption(new Option('--mode <mode>', 'queue mode').choices(['single', 'parallel']))
    .option('--concurrency <n>', 'test runs at once (queue setting concurrency)', '1')
    .option('--batch', 'test PRs in batches (queue setting batch)')
    .option('--batch-size <n>', 'PRs per batch (batchingMinSize); implies --batch')
    .option('--batch-wait <minutes>', 'longest wait for a batch to fill (batchingMaxWaitTimeMinutes); implies --batch')
    .option('--bisection-concurrency <n>', 'bisection runs at once (default: --concurrency)')
    .option(
      '--skip-redundant-tests',
      'reuse failures within a bisection (optimizationMode bisection_skip_redundant_tests)',
    )
    .option('--optimistic', 'a passing run vouches for the groups ahead it included (canOptimisticallyMerge)')
    .option('--pfd <n>', 'pending failure depth: successor levels a failure waits for (pendingFailureDepth)', '0')
    .option('--timeout <minutes>', 'fail runs older than this (testingTimeoutMinutes)', '300')
    .option(
      '--adaptive',
      'adaptive mode: --concurrency becomes the ceiling of a window that follows merges and failures, and batches are sized from the measured failure rate up to --batch-size (adaptiveMode on)',
    )
    .option(
      '--adaptive-min-concurrency <n>',
      'the floor of the adaptive window (adaptiveMinConcurrency, default 2); implies --adaptive',
    )
    .option(
      '--ci-retries <n>',
      'test a failed run again on the same commit up to n times (0-5) before the failure counts (ciRetries)',
      '0',
    )
    .option(
      '--no-risk-aware',
      "batch every PR alike: no PR is tested alone for its author's failures in the queue (riskAwareBatching off)",
    )
    .option('--no-eta', 'skip the estimated merge time of each PR at submission (estimate error): a faster run')
    .option('--json', 'print the figures as JSON')
    .option('--svg <file>', 'write a chart of queue depth and merges per hour over time')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline simulate --rate 12 --concurrency 10 --failure-rate 5% --prs 10000
  $ greenline simulate --saturate --concurrency 10 --batch-size 4 --json
  $ greenline simulate --mode parallel --lanes 4 --concurrency 40 --saturate --svg lanes.svg
  $ greenline simulate --replay history.csv --concurrency 5 --optimistic --pfd 1
  $ greenline simulate --saturate --adaptive --concurrency 20 --batch-size 8
  $ greenline simulate --rate 10 --concurrency 10 --flake-rate 3% --ci-retries 1
  $ greenline simulate --saturate --concurrency 10 --batch-size 4 --risk uneven --no-risk-aware`,
    )
    .action((flags: SimulateFlags) => {
      const options = toOptions(flags);
      const problem = validateOptions(options);
      if (problem) throw new UsageError(problem);
      const { summary, series } = simulate(options);
      if (flags.svg) {
        writeFileSync(
          flags.svg,
          renderChart(series, `greenline simulate: ${summary.mergesPerHour.toFixed(2)} merges per hour`, [
            describeWorkload(options),
            describeQueue(options.queue),
          ]),
        );
      }
      if (flags.json) {
        const { arrivals, ...rest } = options;
        const described =
          arrivals.kind === 'replay' ? { kind: 'replay', file: flags.replay, prs: arrivals.prs.length } : arrivals;
        process.stdout.write(`${JSON.stringify({ options: { ...rest, arrivals: described }, summary }, null, 2)}\n`);
      } else {
        process.stdout.write(formatReport(options, summary));
        if (flags.svg) process.stdout.write(`chart written to ${flags.svg}\n`);
      }
    });
}

function toOptions(f: SimulateFlags): SimulationOptions {
  const base = defaultOptions();
  const concurrency = integer(f.concurrency!, '--concurrency');
  const batch = Boolean(f.batch || f.batchSize !== undefined || f.batchWait !== undefined);
  const queue: Partial<QueueConfig> = {
    concurrency,
    pendingFailureDepth: integer(f.pfd!, '--pfd'),
    canOptimisticallyMerge: Boolean(f.optimistic),
    testingTimeoutMinutes: integer(f.timeout!, '--timeout'),
    ...(f.mode ? { mode: f.mode } : {}),
    ...(batch ? { batch } : {}),
    ...(f.batchSize !== undefined ? { batchingMinSize: integer(f.batchSize, '--batch-size') } : {}),
    ...(f.batchWait !== undefined ? { batchingMaxWaitTimeMinutes: integer(f.batchWait, '--batch-wait') } : {}),
    ...(f.bisectionConcurrency !== undefined
      ? { bisectionConcurrency: integer(f.bisectionConcurrency, '--bisection-concurrency') }
      : {}),
    ...(f.skipRedundantTests ? { optimizationMode: 'bisection_skip_redundant_tests' } : {}),
    ...(f.adaptive || f.adaptiveMinConcurrency !== undefined ? { adaptiveMode: 'on' } : {}),
    ...(f.adaptiveMinConcurrency !== undefined
      ? { adaptiveMinConcurrency: integer(f.adaptiveMinConcurrency, '--adaptive-min-concurrency') }
      : {}),
    ...(f.ciRetries !== undefined && f.ciRetries !== '0' ? { ciRetries: integer(f.ciRetries, '--ci-retries') } : {}),
    ...(f.riskAware ? {} : { riskAwareBatching: 'off' as const }),
  };
  if ([f.saturate, f.replay !== undefined, f.rate !== undefined].filter(Boolean).length > 1) {
    throw new UsageError('choose one way PRs arrive: --rate, --saturate or --replay');
  }
  if (f.replay !== undefined && f.failureRate !== undefined)
    throw new UsageError('--failure-rate does not apply to --replay: its outcome column says which PRs fail');
  if (f.ciJitter !== undefined && f.ciSigma !== undefined)
    throw new UsageError('choose one of --ci-jitter and --ci-sigma');
  if (f.backlog !== undefined && !f.saturate) throw new UsageError('--backlog applies to --saturate only');
  const batchSize = queue.batch ? (queue.batchingMinSize ?? 4) : 1;
  let arrivals: Arrivals;
  if (f.replay !== undefined) arrivals = { kind: 'replay', prs: readReplay(f.replay) };
  else if (f.saturate) {
    arrivals = {
      kind: 'saturated',
      backlog: f.backlog !== undefined ? integer(f.backlog, '--backlog') : Math.max(10, 3 * concurrency * batchSize),
    };
  } else arrivals = f.rate !== undefined ? { kind: 'poisson', perHour: number(f.rate, '--rate') } : base.arrivals;
  const minutes = number(f.ciMinutes!, '--ci-minutes');
  const ci: CiDuration =
    f.ciJitter !== undefined
      ? { kind: 'uniform', minutes, jitter: number(f.ciJitter, '--ci-jitter') }
      : f.ciSigma !== undefined
        ? { kind: 'lognormal', minutes, sigma: number(f.ciSigma, '--ci-sigma') }
        : { kind: 'fixed', minutes };
  const lanes = integer(f.lanes!, '--lanes');
  return {
    ...base,
    seed: integer(f.seed!, '--seed'),
    arrivals,
    maxPrs:
      f.prs !== undefined
        ? integer(f.prs, '--prs')
        : f.hours !== undefined || f.replay !== undefined
          ? null
          : DEFAULT_PR_COUNT,
    hours: f.hours !== undefined ? number(f.hours, '--hours') : null,
    failureRate: f.failureRate !== undefined ? probability(f.failureRate, '--failure-rate') : base.failureRate,
    risk: f.risk as RiskModel,
    flakeRate: probability(f.flakeRate!, '--flake-rate'),
    ci,
    lanes,
    warmupMinutes: f.warmup !== undefined ? number(f.warmup, '--warmup') : null,
    queue: { ...queue, ...(lanes > 1 && !f.mode ? { mode: 'parallel' as const } : {}) },
    measureEta: f.eta,
  };
}

function readReplay(file: string) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --replay file ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  try {
    return parseReplayCsv(text, file);
  } catch (err) {
    if (err instanceof ReplayCsvError) throw new UsageError(err.message);
    throw err;
  }
}

function number(raw: string, flag: string): number {
  const v = raw.trim() === '' ? NaN : Number(raw);
  if (!Number.isFinite(v)) throw new UsageError(`${flag} must be a number, got "${raw}"`);
  return v;
}

function integer(raw: string, flag: string): number {
  const v = number(raw, flag);
  if (!Number.isInteger(v)) throw new UsageError(`${flag} must be a whole number, got "${raw}"`);
  return v;
}

/** A probability as 0.05 or 5%. */
function probability(raw: string, flag: string): number {
  const percent = raw.trim().endsWith('%');
  const v = number(percent ? raw.trim().slice(0, -1) : raw, flag);
  return percent ? v / 100 : v;
}
