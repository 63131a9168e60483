/**
 * Scenario 7 of bench:queue: risk-aware batching on a workload of uneven risk (docs/simulator.md,
 * "Uneven risk"). p = 5%, N = 10, batches of 4 with bisection, the same PRs (seed) for every run:
 * - today's policy: `riskAwareBatching: off`;
 * - risk-aware batching (the default), from what the queue observes (its authors' record);
 * - the bound of perfect risk knowledge: the same PRs with authors that tell which are bad.
 * Goals against today's policy: ≥ 25% fewer CI runs per merge and ≥ 15% more merges per hour with the
 * queue kept full; at 80% of today's capacity a p95 time in queue no worse; no bad PR merged and no
 * more good PRs rejected. And the estimate's range: 78–82% of PRs merge inside it.
 */
import type { QueueConfig } from '../src/engine/index.js';
import type { SimulationSummary } from '../src/sim/metrics.js';
import type { SimulationOptions } from '../src/sim/options.js';
import { loadRate } from './scenarios.js';

type Run = (queue: Partial<QueueConfig>, over?: Partial<SimulationOptions>) => SimulationSummary;
type Row = (
  scenario: string,
  measure: string,
  goal: string,
  measured: string,
  met: boolean | null,
  note?: string,
) => void;

const f2 = (x: number): string => x.toFixed(2);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

export function riskScenario(run: Run, row: Row): void {
  const batched: Partial<QueueConfig> = { concurrency: 10, batch: true, batchingMinSize: 4 };
  const today = { ...batched, riskAwareBatching: 'off' as const };
  const uneven: Partial<SimulationOptions> = { risk: 'uneven', measureEta: false };
  const before = run(today, uneven);
  const after = run(batched, uneven);
  const bound = run(batched, { risk: 'truth', measureEta: false });
  const rate = loadRate(before.mergesPerHour);
  const loaded = { ...uneven, arrivals: { kind: 'poisson' as const, perHour: rate }, measureEta: true };
  const beforeLoad = run(today, loaded);
  const afterLoad = run(batched, loaded);

  const fewerRuns = 1 - after.ciRunsPerMerge / before.ciRunsPerMerge;
  const boundRuns = 1 - bound.ciRunsPerMerge / before.ciRunsPerMerge;
  row(
    'uneven risk, p=5% N=10, B=4',
    'CI runs per merge, vs off',
    '≥ 25% fewer',
    `${pct(fewerRuns)} fewer`,
    fewerRuns >= 0.25,
    `${f2(after.ciRunsPerMerge)} vs ${f2(before.ciRunsPerMerge)}; perfect knowledge: ${f2(bound.ciRunsPerMerge)} (${pct(boundRuns)} fewer)`,
  );
  const more = after.mergesPerHour / before.mergesPerHour - 1;
  const boundMore = bound.mergesPerHour / before.mergesPerHour - 1;
  row(
    '',
    'merges per hour, vs off',
    '≥ 15% more',
    `${pct(more)} more`,
    more >= 0.15,
    `${f2(after.mergesPerHour)}/h vs ${f2(before.mergesPerHour)}/h; perfect knowledge: ${f2(bound.mergesPerHour)}/h (${pct(boundMore)} more)`,
  );
  const p95 = afterLoad.timeInQueueMinutes?.p95 ?? Infinity;
  const p95Before = beforeLoad.timeInQueueMinutes?.p95 ?? Infinity;
  row(
    '',
    'p95 time in queue, vs off',
    'not worse',
    `${p95.toFixed(0)} min`,
    p95 <= p95Before,
    `off: ${p95Before.toFixed(0)} min; at ${rate} PRs/h (80% of the capacity off)`,
  );
  const bad = after.prs.mergedBad + afterLoad.prs.mergedBad;
  row('', 'bad PRs merged', '0', `${bad}`, bad === 0, 'queue kept full and at 80% load');
  const good = after.prs.failedGood + afterLoad.prs.failedGood;
  const goodBefore = before.prs.failedGood + beforeLoad.prs.failedGood;
  row('', 'good PRs rejected, vs off', 'no more', `${good}`, good <= goodBefore, `off: ${goodBefore}`);
  for (const [name, s] of [
    ['risk-aware', afterLoad],
    ['off', beforeLoad],
  ] as const) {
    const inRange = s.eta?.inRange;
    row(
      '',
      `ETA range holds (${name})`,
      '78–82%',
      inRange === undefined ? 'n/a' : pct(inRange),
      inRange !== undefined && inRange >= 0.78 && inRange <= 0.82,
      s.eta ? `${s.eta.estimated} PRs estimated; ${pct(s.eta.later)} merged later than the point estimate` : '',
    );
  }
}
