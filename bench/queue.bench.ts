/**
 * Queue-effectiveness benchmark (`npm run bench:queue`): the real engine in the simulator at
 * T = 30 min, goal and measured value side by side. Prints measurements only; never fails on them.
 *
 * Each scenario measures capacity with saturated arrivals (the queue never runs dry: merges per hour
 * and CI runs per merge, after a warm-up of 2T) and time in queue under Poisson arrivals at 80% of
 * the capacity just measured (a busy but stable queue). All runs of one scenario use the same seed,
 * so they see the same PRs (common random numbers). Theory columns: QUEUE-THEORY §3.2 and §3.4.
 *
 * Scenarios (with the goals greenline sets itself):
 * 1. p = 5%, N = 10, no batching: ≥ 14 merges/h, ≤ 1.35 runs/merge, p50 ≤ 35 min.
 * 2. p = 5%, N = 10, batches of 4 with bisection: ≥ 42 merges/h, ≤ 0.62 runs/merge, p95 ≤ 110 min; with
 *    the default settings, and again with optimizationMode = bisection_skip_redundant_tests.
 * 3. parallel mode, 4 disjoint lanes vs 1, p = 5%, 10 runs per lane: ≥ 3.8× the merges.
 * 4. 3% flaky runs, p = 5%, N = 10: with anti-flake (optimistic merging + PFD 1) ≥ 90% of the
 *    flake-free throughput.
 * Under load, scenarios 1 and 2 also measure estimatedMergeAt as the PR saw it at submission
 * against its real merge time: the absolute error as a share of the time in queue, p50 ≤ 20% and
 * p90 ≤ 30% without batching, p50 ≤ 15% and p90 ≤ 45% with batches.
 * 5. Adaptive mode (ceiling N = 20, batches up to 8): ≥ 97% of the best fixed setting. The best is
 *    found by a sweep of N ∈ {1, 2, 3, 5, 8, 10, 15, 20} × B ∈ {1, 2, 4, 8} (B = 1: no batching) at
 *    p = 5%, saturated; the objective: the most merges per hour among settings that spend at most 1.5
 *    CI runs per merge. Sweep and adaptive run SWEEP_PRS PRs each, the same PRs.
 * 6. CI retries: p = 5%, N = 10, 3% flaky runs, ciRetries 1 against the same queue without flakes: ≥ 95%
 *    of its merges per hour, ≤ 2 good PRs rejected, 0 bad PRs merged (ciRetries 0 for comparison).
 *
 * 7. Uneven risk (bench/risk-scenario.ts): risk-aware batching against the same queue with it off, and
 *    the bound of perfect risk knowledge.
 * Every estimate's range (estimatedMergeRange, p10–p90) should hold 78–82% of the merges (scenarios 1, 2, 7).
 *
 * Run some scenarios only: `npm run bench:queue -- 2 6`.
 */
import type { QueueConfig } from '../src/engine/index.js';
import type { SimulationOptions } from '../src/sim/options.js';
import { simulate } from '../src/sim/simulator.js';
import type { SimulationSummary } from '../src/sim/metrics.js';
import { chainMergesPerCi, chainRunsPerMerge } from '../src/sim/theory.js';
import { riskScenario } from './risk-scenario.js';
import { loadRate, PRS, SEED, scenarioOptions, T } from './scenarios.js';
const SWEEP_PRS = 2000;
const MAX_RUNS_PER_MERGE = 1.5;

interface Row {
  scenario: string;
  measure: string;
  goal: string;
  measured: string;
  met: boolean | null;
  note: string;
}
const rows: Row[] = [];
/** `npm run bench:queue -- 2 6` runs only scenarios 2 and 6; no argument runs them all. */
const only = process.argv.slice(2).map(Number);
const want = (n: number): boolean => only.length === 0 || only.includes(n);
let simulatedPrs = 0;
let wallMs = 0;

function run(queue: Partial<QueueConfig>, over: Partial<SimulationOptions> = {}): SimulationSummary {
  const { summary } = simulate(scenarioOptions(queue, over));
  simulatedPrs += summary.prs.arrived;
  wallMs += summary.wallMs;
  return summary;
}

/** Time in queue under load (scenarios.ts: 80% of the measured capacity). */
function underLoad(queue: Partial<QueueConfig>, capacity: number): { rate: number; s: SimulationSummary } {
  const rate = loadRate(capacity);
  return { rate, s: run(queue, { arrivals: { kind: 'poisson', perHour: rate } }) };
}

const f2 = (x: number): string => x.toFixed(2);
const share = (x: number | undefined): string => (x === undefined ? 'n/a' : `${(100 * x).toFixed(1)}%`);
const mins = (x: number | undefined): string => (x === undefined ? 'n/a' : `${x.toFixed(0)} min`);
function row(scenario: string, measure: string, goal: string, measured: string, met: boolean | null, note = ''): void {
  rows.push({ scenario, measure, goal, measured, met, note });
}

/**
 * The estimate of the merge time made at submission (estimatedMergeAt) against the real merge:
 * absolute error as a share of the PR's time in queue, at 80% load.
 */
function etaRows(s: SimulationSummary, rate: number, p50Goal: number, p90Goal: number): void {
  const e = s.eta;
  const pct = (x: number): string => `≤ ${(100 * x).toFixed(0)}%`;
  row(
    '',
    'ETA error p50 (of time in queue)',
    pct(p50Goal),
    share(e?.p50),
    e ? e.p50 <= p50Goal : false,
    `at ${rate} PRs/h`,
  );
  row(
    '',
    'ETA error p90',
    pct(p90Goal),
    share(e?.p90),
    e ? e.p90 <= p90Goal : false,
    e ? `${e.estimated} PRs estimated, ${e.unestimated} not` : '',
  );
  row(
    '',
    'ETA range holds (p10–p90)',
    '78–82%',
    share(e?.inRange),
    e ? e.inRange >= 0.78 && e.inRange <= 0.82 : false,
    e ? `${share(e.later)} merged later than the point estimate` : '',
  );
}

// 1. Speculative chain, no batching.
if (want(1)) {
  const q: Partial<QueueConfig> = { concurrency: 10 };
  const sat = run(q);
  const { rate, s } = underLoad(q, sat.mergesPerHour);
  const name = 'p=5% N=10, no batching';
  row(
    name,
    'merges per hour',
    '≥ 14',
    f2(sat.mergesPerHour),
    sat.mergesPerHour >= 14,
    `theory ${f2((chainMergesPerCi(0.05, 10) * 60) / T)}`,
  );
  row(
    '',
    'CI runs per merge',
    '≤ 1.35',
    f2(sat.ciRunsPerMerge),
    sat.ciRunsPerMerge <= 1.35,
    `theory ${f2(chainRunsPerMerge(0.05, 10))}`,
  );
  row(
    '',
    'p50 time in queue',
    '≤ 35 min',
    mins(s.timeInQueueMinutes?.p50),
    (s.timeInQueueMinutes?.p50 ?? Infinity) <= 35,
    `at ${rate} PRs/h`,
  );
  row('', 'p95 time in queue', '', mins(s.timeInQueueMinutes?.p95), null, `at ${rate} PRs/h`);
  etaRows(s, rate, 0.2, 0.3);
}

// 2. Batches of 4 with bisection (bisectionConcurrency follows concurrency), with the default
// settings and with bisection_skip_redundant_tests.
for (const [name, extra] of want(2)
  ? ([
      ['p=5% N=10, B=4, bisection', {}],
      ['  same, skip redundant tests', { optimizationMode: 'bisection_skip_redundant_tests' }],
    ] as const)
  : []) {
  const q: Partial<QueueConfig> = { concurrency: 10, batch: true, batchingMinSize: 4, ...extra };
  const sat = run(q);
  const { rate, s } = underLoad(q, sat.mergesPerHour);
  const qq = 0.95 ** 4;
  const theory = (4 * qq * (1 - qq ** 10)) / (1 - qq);
  row(
    name,
    'merges per hour',
    '≥ 42',
    f2(sat.mergesPerHour),
    sat.mergesPerHour >= 42,
    `theory ${f2((theory * 60) / T)} (§3.4)`,
  );
  row(
    '',
    'CI runs per merge',
    '≤ 0.62',
    f2(sat.ciRunsPerMerge),
    sat.ciRunsPerMerge <= 0.62,
    `${sat.bisectionRuns} bisection runs`,
  );
  row('', 'p50 time in queue', '', mins(s.timeInQueueMinutes?.p50), null, `at ${rate} PRs/h`);
  row(
    '',
    'p95 time in queue',
    '≤ 110 min',
    mins(s.timeInQueueMinutes?.p95),
    (s.timeInQueueMinutes?.p95 ?? Infinity) <= 110,
    `at ${rate} PRs/h`,
  );
  etaRows(s, rate, 0.15, 0.45);
}

// 3. Lanes: 4 disjoint lanes vs 1, 10 runs per lane.
if (want(3)) {
  const one = run({ mode: 'parallel', concurrency: 10 }, { maxPrs: PRS / 2 });
  const four = run(
    { mode: 'parallel', concurrency: 40 },
    { lanes: 4, arrivals: { kind: 'saturated', backlog: 4 * 25 } },
  );
  // The same CI budget spent on one chain instead (single mode: one lane, and much faster to simulate).
  const oneWide = run({ concurrency: 40 }, { arrivals: { kind: 'saturated', backlog: 100 } });
  const ratio = four.mergesPerHour / one.mergesPerHour;
  row(
    '4 lanes vs 1, p=5%, N=10/lane',
    'merges, 4 lanes / 1',
    '≥ 3.8×',
    `${f2(ratio)}×`,
    ratio >= 3.8,
    `${f2(four.mergesPerHour)}/h vs ${f2(one.mergesPerHour)}/h; one chain at N=40: ${f2(oneWide.mergesPerHour)}/h`,
  );
}

// 4. Flaky runs, anti-flake off and on.
if (want(4)) {
  const clean = run({ concurrency: 10 });
  const off = run({ concurrency: 10 }, { flakeRate: 0.03 });
  const on = run({ concurrency: 10, canOptimisticallyMerge: true, pendingFailureDepth: 1 }, { flakeRate: 0.03 });
  const share = (s: SimulationSummary) => s.mergesPerHour / clean.mergesPerHour;
  row(
    '3% flaky runs, p=5% N=10',
    'anti-flake on / flake-free',
    '≥ 90%',
    `${(100 * share(on)).toFixed(1)}%`,
    share(on) >= 0.9,
    `${f2(on.mergesPerHour)}/h vs ${f2(clean.mergesPerHour)}/h; ${on.prs.failedGood} good PRs rejected`,
  );
  row(
    '',
    'anti-flake off / flake-free',
    '',
    `${(100 * share(off)).toFixed(1)}%`,
    null,
    `${f2(off.mergesPerHour)}/h; ${off.prs.failedGood} good PRs rejected`,
  );
}

// 6. CI retries on flaky runs: ciRetries 1 against the same queue without flakes, and ciRetries 0.
if (want(6)) {
  const clean = run({ concurrency: 10 });
  const without = run({ concurrency: 10 }, { flakeRate: 0.03 });
  const with1 = run({ concurrency: 10, ciRetries: 1 }, { flakeRate: 0.03 });
  const kept = with1.mergesPerHour / clean.mergesPerHour;
  row(
    '3% flaky, p=5% N=10, ciRetries 1',
    'merges/h, of flake-free',
    '≥ 95%',
    `${(100 * kept).toFixed(1)}%`,
    kept >= 0.95,
    `${f2(with1.mergesPerHour)}/h vs ${f2(clean.mergesPerHour)}/h; ciRetries 0: ${f2(without.mergesPerHour)}/h`,
  );
  row(
    '',
    'good PRs rejected',
    '≤ 2',
    `${with1.prs.failedGood}`,
    with1.prs.failedGood <= 2,
    `of ${with1.prs.arrived}; ciRetries 0: ${without.prs.failedGood}`,
  );
  row('', 'bad PRs merged', '0', `${with1.prs.mergedBad}`, with1.prs.mergedBad === 0);
  row(
    '',
    'CI runs/merge',
    '',
    f2(with1.ciRunsPerMerge),
    null,
    `ciRetries 0: ${f2(without.ciRunsPerMerge)}; flake-free: ${f2(clean.ciRunsPerMerge)}`,
  );
}

// 7. Uneven risk: risk-aware batching against today's policy and the bound of perfect risk knowledge.
if (want(7)) riskScenario(run, row);

// 5. Adaptive mode against the best fixed N and B.
const sweep: { n: number; b: number; s: SimulationSummary }[] = [];
if (want(5)) {
  const queueOf = (n: number, b: number): Partial<QueueConfig> =>
    b > 1 ? { concurrency: n, batch: true, batchingMinSize: b } : { concurrency: n };
  for (const n of [1, 2, 3, 5, 8, 10, 15, 20]) {
    for (const b of [1, 2, 4, 8]) sweep.push({ n, b, s: run(queueOf(n, b), { maxPrs: SWEEP_PRS }) });
  }
  const best = sweep
    .filter((x) => x.s.ciRunsPerMerge <= MAX_RUNS_PER_MERGE)
    .reduce((a, x) => (x.s.mergesPerHour > a.s.mergesPerHour ? x : a));
  const adaptive = run({ ...queueOf(20, 8), adaptiveMode: 'on' }, { maxPrs: SWEEP_PRS });
  const share = adaptive.mergesPerHour / best.s.mergesPerHour;
  const end = adaptive.adaptive!;
  row(
    'adaptive, p=5%, N ≤ 20, B ≤ 8',
    'adaptive / best fixed',
    '≥ 97%',
    `${(100 * share).toFixed(1)}%`,
    share >= 0.97,
    `${f2(adaptive.mergesPerHour)}/h at ${f2(adaptive.ciRunsPerMerge)} runs/merge vs N=${best.n} B=${best.b}: ${f2(best.s.mergesPerHour)}/h at ${f2(best.s.ciRunsPerMerge)}`,
  );
  row(
    '',
    'adaptive at the end',
    '',
    `N=${end.concurrency} B=${end.batchSize}`,
    null,
    `measured failure rate ${(100 * end.failureRate).toFixed(1)}%`,
  );
}

const widths = [32, 32, 11, 10, 7];
const line = (cells: string[]): string =>
  cells
    .map((c, i) => (i < widths.length ? c.padEnd(widths[i]) : c))
    .join(' ')
    .trimEnd();
console.log(`queue: the engine in the simulator, T = ${T} min fixed, seed ${SEED}, ${PRS} PRs per capacity run`);
console.log('(capacity with the queue kept full; time in queue under Poisson arrivals at 80% of that capacity)');
console.log(line(['scenario', 'measure', 'goal', 'measured', 'met', 'note']));
for (const r of rows)
  console.log(line([r.scenario, r.measure, r.goal, r.measured, r.met === null ? '' : r.met ? 'yes' : 'NO', r.note]));
if (sweep.length > 0) {
  console.log(
    `\nsweep of scenario 5 (p=5%, saturated, ${SWEEP_PRS} PRs each): merges per hour (CI runs per merge); best = most merges at ≤ ${MAX_RUNS_PER_MERGE} runs/merge`,
  );
  const sizes = [...new Set(sweep.map((x) => x.b))];
  const cell = (c: string, i: number): string => c.padEnd(i === 0 ? 8 : 16);
  console.log(['N \\ B', ...sizes.map((b) => `B=${b}`)].map(cell).join('').trimEnd());
  for (const n of [...new Set(sweep.map((x) => x.n))]) {
    const cells = sizes
      .map((b) => sweep.find((x) => x.n === n && x.b === b)!.s)
      .map((x) => `${f2(x.mergesPerHour)} (${f2(x.ciRunsPerMerge)})`);
    console.log([`N=${n}`, ...cells].map(cell).join('').trimEnd());
  }
}
console.log(
  `simulated ${simulatedPrs} PRs in ${(wallMs / 1000).toFixed(1)} s (${((wallMs * 1000) / simulatedPrs).toFixed(0)} µs per PR)`,
);
