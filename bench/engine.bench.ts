/**
 * Engine benchmark (`npm run bench:engine`): the time of one scheduling pass of `decide` on large
 * queues, and how it grows from 1,000 to 10,000 PRs. Goals: < 20 ms per pass at 10,000 PRs and a
 * 10k/1k ratio ≤ 10 (linear-ish; a quadratic pass would show ~100); each figure is printed beside its
 * goal with met / NO.
 *
 * Queues are built directly as snapshots: every PR admitted (PENDING), parallel-mode PRs with 5
 * impacted targets each drawn from a pool of 50,000. Passes measured:
 * - tick: a scheduling pass that starts `concurrency` runs on the idle queue;
 * - ciResult: a run in the middle of the active window fails, which restarts the runs behind it
 *   (single mode) or its lane (parallel) and reschedules.
 */
import {
  decide,
  newQueueSnapshot,
  type Entry,
  type QueueConfig,
  type QueueSnapshot,
  type TestRun,
} from '../src/engine/index.js';
import { Prng } from '../src/sim/prng.js';
import { entryRecord } from '../test/store/records.js';

const CONCURRENCY = 25;

function queue(size: number, mode: QueueConfig['mode']): QueueSnapshot {
  const prng = new Prng(size);
  const random = (): number => prng.next();
  const base = newQueueSnapshot({ host: 'github.com', owner: 'acme', name: 'monorepo' }, 'main', {
    mode,
    concurrency: CONCURRENCY,
  });
  const entries: Entry[] = [];
  for (let n = 1; n <= size; n++) {
    const targets =
      mode === 'parallel' ? Array.from({ length: 5 }, () => `//target:${Math.floor(random() * 50_000)}`) : null;
    entries.push(
      entryRecord(n, {
        stateChangedAt: n,
        submittedAt: n,
        admittedAt: n,
        impactedTargets: targets,
        timeline: [
          { at: n, from: null, to: 'NOT_READY', reason: 'API_REQUESTED' },
          { at: n, from: 'NOT_READY', to: 'PENDING', reason: 'MERGE_ITEM_NOW_READY' },
        ],
      }),
    );
  }
  return { ...base, targetSha: 'S0', entries, internal: { targetHistory: [{ sha: 'S0', prs: [] }] } };
}

function ids(): { newId(): string } {
  let n = 0;
  return { newId: () => `run-${++n}` };
}

function mustDecide(s: QueueSnapshot, ev: Parameters<typeof decide>[1]): QueueSnapshot {
  const d = decide(s, ev, ids());
  if (!d.ok) throw new Error(`${ev.kind} refused: ${d.rejection.message}`);
  return d.snapshot;
}

/** The idle queue after one tick and every test branch built: CONCURRENCY runs in progress. */
function busy(s: QueueSnapshot): { snapshot: QueueSnapshot; runs: TestRun[] } {
  let snapshot = mustDecide(s, { kind: 'tick', at: 1_000_000 });
  const runs = snapshot.runs.filter((r) => r.status === 'creating');
  for (const r of runs)
    snapshot = mustDecide(snapshot, { kind: 'testBranchCreated', at: 1_000_001, runId: r.id, sha: `t-${r.id}` });
  return { snapshot, runs };
}

/** Median wall time in ms of `fn` over `times` calls, after one warm-up call. */
function measure(fn: () => void, times = 15): number {
  fn();
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

interface Row {
  label: string;
  size: number;
  tick: number;
  ci: number;
}

function bench(size: number, mode: QueueConfig['mode']): Row {
  const idle = queue(size, mode);
  const tick = measure(() => decide(idle, { kind: 'tick', at: 1_000_000 }, ids()));
  const { snapshot, runs } = busy(idle);
  const victim = runs[Math.floor(runs.length / 2)].id;
  const ci = measure(() =>
    decide(snapshot, { kind: 'ciResult', at: 1_000_002, runId: victim, outcome: 'failure' }, ids()),
  );
  return { label: `${mode} mode`, size, tick, ci };
}

const rows = [bench(1_000, 'parallel'), bench(10_000, 'parallel'), bench(1_000, 'single'), bench(10_000, 'single')];
const fmt = (ms: number) => `${ms.toFixed(2).padStart(8)} ms`;
console.log(`engine: one scheduling pass (median of 15), concurrency ${CONCURRENCY}`);
console.log(`${'queue'.padEnd(16)}${'PRs'.padStart(7)}${'tick pass'.padStart(13)}${'ciResult pass'.padStart(15)}`);
for (const r of rows) console.log(`${r.label.padEnd(16)}${String(r.size).padStart(7)}  ${fmt(r.tick)}  ${fmt(r.ci)}`);
const PASS_GOAL_MS = 20;
const GROWTH_GOAL = 10;
const verdict = (ok: boolean) => (ok ? 'met' : 'NO');
for (const mode of ['parallel', 'single']) {
  const [small, large] = rows.filter((r) => r.label.startsWith(mode));
  for (const [pass, key] of [
    ['tick', 'tick'],
    ['ciResult', 'ci'],
  ] as const) {
    const growth = large[key] / small[key];
    console.log(
      `${mode} ${pass} pass at 10k: ${large[key].toFixed(2)} ms (goal < ${PASS_GOAL_MS} ms: ${verdict(large[key] < PASS_GOAL_MS)}), 10k/1k growth ${growth.toFixed(1)}x (goal ≤ ${GROWTH_GOAL}x: ${verdict(growth <= GROWTH_GOAL)})`,
    );
  }
}
