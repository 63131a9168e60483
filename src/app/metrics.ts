/**
 * Prometheus metrics of contract §7, computed from the store on each scrape. Labels on every series:
 * repo (owner/name), branch, queue_type. The `_1h` series are snapshots of the last hour, not
 * counters. Queue-wide series (depth, awaiting mergeability, hourly conclusions, restarts and
 * durations) are reported under queue_type="main"; testing slots are split by the type of the run.
 */
import type { Kysely } from 'kysely';
import { Gauge, Histogram, Registry } from 'prom-client';
import { PrState, TERMINAL_STATES, isTerminal, type PrState as State, type TestRun } from '../engine/types.js';
import type { Database, TransitionRow } from '../store/database.js';
import { listActiveEntries } from '../store/entries.js';
import { listQueuesOfRepos } from '../store/queues.js';
import { listRepos } from '../store/repos.js';
import { listRunsForSnapshot } from '../store/test-runs.js';
import { listTransitionsOfRecentPrs } from '../store/transitions.js';

const HOUR_MS = 3_600_000;
const BUCKETS = [60, 300, 600, 900, 1800, 3600, 5400, 7200];
const LABELS = ['repo', 'branch', 'queue_type'] as const;
const CONCLUSIONS = { MERGED: 'merged', FAILED: 'failed', CANCELLED: 'cancelled' } as const;

function buildRegistry() {
  const registers = [new Registry()];
  const g = (name: string, help: string, extra: string[] = []) =>
    new Gauge({ name, help, labelNames: [...LABELS, ...extra], registers });
  const h = (name: string, help: string, extra: string[] = []) =>
    new Histogram({ name, help, labelNames: [...LABELS, ...extra], buckets: BUCKETS, registers });
  return {
    registry: registers[0]!,
    depth: g('mq_depth_current', 'PRs currently in the queue'),
    awaiting: g('mq_awaiting_mergeability', 'Number of PRs currently awaiting mergeability'),
    testing: g('mq_testing_slots_active', 'PRs currently in TESTING state'),
    conclusions: g('mq_pr_conclusions_1h_total', 'PRs exiting the queue in last hour', ['conclusion']),
    restarts: g('mq_pr_restarts_1h_total', 'PR restarts in last hour'),
    wait: h('mq_pr_wait_duration_1h_seconds', 'Time PRs waited from admission until testing started, last hour'),
    test: h('mq_pr_test_duration_1h_seconds', 'Time PRs spent in TESTING, last hour'),
    inQueue: h('mq_pr_time_in_queue_1h_seconds', 'Time PRs spent in the queue from admission until they left it, last hour', ['conclusion']),
  };
}

type Metrics = ReturnType<typeof buildRegistry>;
type Labels = Record<(typeof LABELS)[number], string>;

/** Feeds one PR's transitions (oldest first) into the hourly series. */
function observePr(m: Metrics, labels: Labels, rows: TransitionRow[], since: number): void {
  let admittedAt: number | null = null;
  let pendingAt: number | null = null;
  let testingAt: number | null = null;
  for (const t of rows) {
    const to = t.to_state as State;
    const recent = t.at >= since;
    if (t.from_state === PrState.TESTING && to !== PrState.TESTING) {
      if (recent && testingAt !== null) m.test.observe(labels, (t.at - testingAt) / 1000);
      if (recent && to === PrState.PENDING) m.restarts.inc(labels);
      testingAt = null;
    }
    if (to === PrState.NOT_READY) admittedAt = pendingAt = testingAt = null;
    if (to === PrState.PENDING) {
      pendingAt = t.at;
      if (t.from_state === PrState.NOT_READY || admittedAt === null) admittedAt = t.at;
    }
    if (to === PrState.TESTING) {
      if (recent && pendingAt !== null) m.wait.observe(labels, (t.at - pendingAt) / 1000);
      testingAt = t.at;
    }
    if (isTerminal(to)) {
      const conclusion = CONCLUSIONS[to as keyof typeof CONCLUSIONS];
      if (recent) {
        m.conclusions.inc({ ...labels, conclusion });
        if (admittedAt !== null) m.inQueue.observe({ ...labels, conclusion }, (t.at - admittedAt) / 1000);
      }
      admittedAt = pendingAt = testingAt = null;
    }
  }
}

export async function renderMetrics(
  db: Kysely<Database>, opts: { orgId: string; repoIds?: string[]; now: number },
): Promise<string> {
  const m = buildRegistry();
  const repos = (await listRepos(db, opts.orgId)).filter((r) => !opts.repoIds || opts.repoIds.includes(r.id));
  const repoById = new Map(repos.map((r) => [r.id, r]));
  const queues = await listQueuesOfRepos(db, repos.map((r) => r.id));
  const since = opts.now - HOUR_MS;
  const transitions = await listTransitionsOfRecentPrs(db, queues.map((q) => q.id), since);
  for (const q of queues) {
    const repo = repoById.get(q.repo_id)!;
    const main: Labels = { repo: `${repo.owner}/${repo.name}`, branch: q.target_branch, queue_type: 'main' };
    const bisection: Labels = { ...main, queue_type: 'bisection' };
    const entries = await listActiveEntries(db, q.id, TERMINAL_STATES);
    const runIds = entries.flatMap((e) => (e.state === PrState.TESTING && e.runId ? [e.runId] : []));
    const runs = new Map((await listRunsForSnapshot(db, q.id, [], runIds)).map((r): [string, TestRun] => [r.id, r]));
    const testing = entries.filter((e) => e.state === PrState.TESTING);
    const inBisection = testing.filter((e) => runs.get(e.runId ?? '')?.queueType === 'bisection').length;
    for (const labels of [main, bisection]) {
      m.depth.set(labels, labels === main ? entries.filter((e) => e.state !== PrState.NOT_READY).length : 0);
      m.awaiting.set(labels, labels === main ? entries.filter((e) => e.state === PrState.NOT_READY).length : 0);
      m.testing.set(labels, labels === main ? testing.length - inBisection : inBisection);
      m.restarts.set(labels, 0);
      for (const conclusion of Object.values(CONCLUSIONS)) {
        m.conclusions.set({ ...labels, conclusion }, 0);
        m.inQueue.zero({ ...labels, conclusion });
      }
      m.wait.zero(labels);
      m.test.zero(labels);
    }
    const byPr = new Map<number, TransitionRow[]>();
    for (const t of transitions) {
      if (t.queue_id !== q.id) continue;
      const rows = byPr.get(t.pr_number);
      if (rows) rows.push(t);
      else byPr.set(t.pr_number, [t]);
    }
    for (const rows of byPr.values()) observePr(m, main, rows, since);
  }
  return m.registry.metrics();
}
