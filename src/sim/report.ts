/** The human-readable report of a simulation, and a one-line description of its set-up. */
import { DEFAULT_ADAPTIVE_MIN_CONCURRENCY, DEFAULT_QUEUE_CONFIG, type QueueConfig } from '../engine/index.js';
import type { SimulationSummary } from './metrics.js';
import type { SimulationOptions } from './options.js';

const pct = (x: number): string => `${+(x * 100).toFixed(2)}%`;
const num = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

export function describeWorkload(o: SimulationOptions): string {
  const a = o.arrivals;
  const arrivals =
    a.kind === 'poisson'
      ? `Poisson ${a.perHour} PRs/h`
      : a.kind === 'saturated'
        ? `saturated (queue kept at ${a.backlog} PRs)`
        : `replay of ${a.prs.length} PRs`;
  const c = o.ci;
  const ci =
    c.kind === 'fixed'
      ? `CI ${c.minutes} min`
      : c.kind === 'uniform'
        ? `CI ${c.minutes} ± ${c.jitter} min`
        : `CI lognormal mean ${c.minutes} min σ ${c.sigma}`;
  const spread = o.risk === 'uniform' ? '' : ` (${o.risk} risk)`;
  const failures = a.kind === 'replay' ? 'failures from the replay' : `${pct(o.failureRate)} bad PRs${spread}`;
  return `${arrivals} · ${ci}${a.kind === 'replay' ? ' (replay: recorded)' : ''} · ${failures} · ${pct(o.flakeRate)} flaky runs · ${o.lanes} lane${o.lanes > 1 ? 's' : ''}`;
}

export function describeQueue(queue: Partial<QueueConfig>): string {
  const c = { ...DEFAULT_QUEUE_CONFIG, ...queue };
  const size =
    c.adaptiveMode === 'on'
      ? `batches of up to ${c.batchingMinSize} (sized from the failure rate`
      : `batches of ${c.batchingMinSize} (wait ${c.batchingMaxWaitTimeMinutes} min`;
  const batching = c.batch
    ? `${size}, bisection concurrency ${queue.bisectionConcurrency ?? c.concurrency}${c.optimizationMode === 'off' ? '' : ', skip redundant tests'})`
    : 'no batching';
  const concurrency =
    c.adaptiveMode === 'on'
      ? `adaptive concurrency ${Math.min(c.adaptiveMinConcurrency ?? DEFAULT_ADAPTIVE_MIN_CONCURRENCY, c.concurrency)}–${c.concurrency}`
      : `concurrency ${c.concurrency}`;
  return `${c.mode} · ${concurrency} · ${batching} · PFD ${c.pendingFailureDepth} · optimistic merge ${c.canOptimisticallyMerge ? 'on' : 'off'}${c.ciRetries ? ` · CI retries ${c.ciRetries}` : ''}`;
}

export function formatReport(o: SimulationOptions, s: SimulationSummary): string {
  const t = s.timeInQueueMinutes;
  const rows: [string, string][] = [
    ['workload', describeWorkload(o)],
    ['queue', describeQueue(o.queue)],
    [
      'window',
      `${num(s.warmupMinutes / 60)} h to ${num(s.warmupMinutes / 60 + s.windowHours)} h (after the warm-up, until arrivals stop)`,
    ],
    ['', ''],
    ['merges per hour', num(s.mergesPerHour)],
    [
      'time in queue',
      t
        ? `p50 ${num(t.p50, 1)} min · p95 ${num(t.p95, 1)} min · mean ${num(t.mean, 1)} min · max ${num(t.max, 1)} min`
        : 'n/a (nothing merged)',
    ],
    [
      'estimate error',
      s.eta
        ? `p50 ${pct(s.eta.p50)} · p90 ${pct(s.eta.p90)} of the time in queue (estimatedMergeAt at submission vs the merge; ${s.eta.estimated} estimated, ${s.eta.unestimated} without estimate); ${pct(s.eta.inRange)} merged within the estimated range (p10–p90), ${pct(s.eta.later)} after the estimate`
        : o.measureEta
          ? 'n/a (nothing estimated)'
          : 'not measured (--no-eta)',
    ],
    ['CI runs per merge', `${num(s.ciRunsPerMerge, 3)} (${num(s.ciHoursPerMerge, 3)} CI hours per merge)`],
    ['restarts', `${s.restarts} (${num(s.restartsPerMerge)} per merge)`],
    ['bisection runs', String(s.bisectionRuns)],
    ...(s.adaptive
      ? [
          [
            'adaptive mode',
            `window ${s.adaptive.concurrency} · batch size ${s.adaptive.batchSize} · measured failure rate ${pct(s.adaptive.failureRate)} (at the end)`,
          ] as [string, string],
        ]
      : []),
    ['queue depth', `mean ${num(s.meanQueueDepth, 1)} · max ${s.maxQueueDepth}`],
    [
      'PRs',
      `${s.prs.arrived} arrived · ${s.prs.merged} merged · ${s.prs.failedBad} bad ones failed · ${s.prs.failedGood} good ones failed · ${s.prs.mergedBad} bad ones merged · ${s.prs.left} left`,
    ],
    ['invariant breaches', String(s.invariantBreaches)],
    [
      'simulated',
      `${num(s.simulatedHours, 1)} h in ${num(s.wallMs / 1000)} s (${s.decisions} engine decisions, seed ${s.seed})`,
    ],
  ];
  return `${rows.map(([k, v]) => (k === '' ? '' : `${k.padEnd(20)}${v}`)).join('\n')}\n`;
}
