/**
 * Metrics scrape benchmark (`npm run bench:metrics`): the time of one GET /v1/getMergeQueueMetrics
 * computation (renderMetrics: every store read, the hourly windows, lanes and the prom-client text)
 * over a SQLite file (WAL) holding a month of history. Goal: < 100 ms per scrape.
 *
 * Data, seeded directly through the store functions: one organization, 10 repositories with one
 * queue each (every other one in parallel mode with impacted targets), 100,000 finished entries over
 * the last 30 days (each with its transitions, 4 or 5, and its test run; ~140 finish in the last
 * hour) and 1,000 queued entries (100 per queue: waiting for mergeability, pending, testing with a run
 * in flight, passed, pending failure), some of them in bisection runs.
 * Baseline: prom-client rendering a registry of the same families and label sets filled from memory
 * (no store): the floor of the exposition alone. Prints median and p95 of 30 scrapes after 3 warm-ups
 * and the ratio to the baseline; nothing is enforced.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureOrg } from '../src/app/admin/org-admin.js';
import { renderMetrics } from '../src/app/read-models/metrics.js';
import { connectRepo } from '../src/app/admin/repo-admin.js';
import { DEFAULT_QUEUE_CONFIG } from '../src/engine/config.js';
import type { Entry, PrState, QueueType, TestRun, TimelineItem, TransitionReason } from '../src/engine/types.js';
import { CONCLUSIONS, QUEUE_TYPES, RUN_STATUSES, newQueueMetrics } from '../src/metrics/queue-metrics.js';
import { connect } from '../src/store/connect.js';
import type { NewTransition } from '../src/store/database.js';
import { upsertEntries } from '../src/store/entries.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { insertQueue } from '../src/store/queues.js';
import { upsertRuns } from '../src/store/test-runs.js';
import { insertTransitions } from '../src/store/transitions.js';
import { Prng } from '../src/sim/prng.js';

const QUEUES = 10;
const HISTORY = 100_000;
const QUEUED = 1_000;
const DAYS = 30;
const GOAL_MS = 100;
const NOW = Date.UTC(2026, 5, 1);
const MIN = 60_000;

const prng = new Prng(42);
const random = (): number => prng.next();
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];

interface Trip {
  entry: Entry;
  run: TestRun | null;
}

/** One PR's trip: its timeline from `steps` ([state, reason, minutes after the previous step]). */
function trip(
  n: number,
  start: number,
  steps: [PrState, TransitionReason, number][],
  run: TestRun | null,
  parallel: boolean,
): Trip {
  const timeline: TimelineItem[] = [];
  let at = start;
  let from: PrState | null = null;
  for (const [to, reason, minutes] of steps) {
    at += minutes * MIN;
    timeline.push({
      at,
      from,
      to,
      reason,
      ...(run && to !== 'NOT_READY' && to !== 'PENDING' ? { runId: run.id } : {}),
    });
    from = to;
  }
  const last = timeline[timeline.length - 1];
  const admitted = timeline.find((i) => i.to === 'PENDING');
  return {
    run,
    entry: {
      id: `entry-${n}`,
      prNumber: n,
      trip: 1,
      state: last.to,
      stateChangedAt: last.at,
      submittedAt: start,
      admittedAt: admitted?.at ?? null,
      headSha: `head-${n}`,
      baseBranch: 'main',
      title: `Change ${n}`,
      author: 'dev',
      mergeability: 'mergeable',
      priorityValue: 100,
      priorityName: 'medium',
      usedDefaultPriorityName: 'medium',
      skipTheLine: false,
      noBatch: false,
      forceEnqueued: false,
      impactedTargets: parallel ? [`//t:${Math.floor(random() * 300)}`, `//t:${Math.floor(random() * 300)}`] : null,
      runId: run?.id ?? null,
      verifiedByTestRun: null,
      lastReason: last.reason,
      timeline,
    },
  };
}

function runFor(n: number, queueType: QueueType, createdAt: number, status: TestRun['status'], size: number): TestRun {
  const prNumbers = Array.from({ length: size }, (_v, i) => n + i);
  return {
    id: `run-${n}-${queueType}`,
    queueType,
    prNumbers,
    dependentPrs: [],
    baseSha: 'base',
    prs: prNumbers.map((p) => ({ number: p, headSha: `head-${p}` })),
    testBranch: `trunk-merge/pr-${n}/run-${n}`,
    testSha: `test-${n}`,
    status,
    createdAt,
    finishedAt: status === 'in_progress' ? null : createdAt + 20 * MIN,
    failureReason: status === 'failed' ? 'TEST_RUN_REQUIRED_STATUS_FAILED' : null,
    failureDetail: null,
  };
}

function finished(n: number, parallel: boolean): Trip {
  const start = NOW - Math.floor(random() * DAYS * 24 * 60) * MIN;
  const size = pick([1, 1, 1, 2, 4]);
  const outcome = random();
  const run = runFor(
    n,
    'main',
    start + 5 * MIN,
    outcome < 0.85 ? 'succeeded' : outcome < 0.95 ? 'failed' : 'cancelled',
    size,
  );
  const begin: [PrState, TransitionReason, number][] = [
    ['NOT_READY', 'API_REQUESTED', 0],
    ['PENDING', 'MERGE_ITEM_NOW_READY', 2],
    ['TESTING', 'TEST_RUN_STARTED', 5],
  ];
  const end: [PrState, TransitionReason, number][] =
    outcome < 0.85
      ? [
          ['TESTS_PASSED', 'TEST_RUN_PASSED', 20],
          ['MERGED', 'MERGE_GRAPH_MERGE', 1],
        ]
      : outcome < 0.95
        ? [
            ['PENDING_FAILURE', 'TEST_RUN_REQUIRED_STATUS_FAILED', 20],
            ['FAILED', 'TEST_RUN_REQUIRED_STATUS_FAILED', 3],
          ]
        : [['CANCELLED', 'USER_REQUESTED', 10]];
  return trip(n, start, [...begin, ...end], run, parallel);
}

function queued(n: number, i: number, parallel: boolean): Trip {
  const start = NOW - Math.floor(random() * 180) * MIN - 10 * MIN;
  const submitted: [PrState, TransitionReason, number][] = [['NOT_READY', 'API_REQUESTED', 0]];
  const pending: [PrState, TransitionReason, number][] = [...submitted, ['PENDING', 'MERGE_ITEM_NOW_READY', 1]];
  const kind = i % 10;
  if (kind === 0) return trip(n, start, submitted, null, parallel);
  if (kind <= 5) return trip(n, start, pending, null, parallel);
  const queueType: QueueType = kind === 6 ? 'bisection' : 'main';
  const testing: [PrState, TransitionReason, number][] = [...pending, ['TESTING', 'TEST_RUN_STARTED', 3]];
  if (kind <= 7) return trip(n, start, testing, runFor(n, queueType, start + 4 * MIN, 'in_progress', 1), parallel);
  if (kind === 8)
    return trip(
      n,
      start,
      [...testing, ['TESTS_PASSED', 'TEST_RUN_PASSED', 4]],
      runFor(n, 'main', start + 4 * MIN, 'succeeded', 1),
      parallel,
    );
  return trip(
    n,
    start,
    [...testing, ['PENDING_FAILURE', 'TEST_RUN_REQUIRED_STATUS_FAILED', 4]],
    runFor(n, 'main', start + 4 * MIN, 'failed', 1),
    parallel,
  );
}

const chunks = <T>(list: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(list.length / size) }, (_v, i) => list.slice(i * size, (i + 1) * size));

async function seed(db: ReturnType<typeof connect>): Promise<string> {
  const org = await ensureOrg(db, 'acme', NOW);
  for (let q = 0; q < QUEUES; q++) {
    const repo = await connectRepo(db, { org: 'acme', slug: `github.com/acme/repo-${q}`, forge: 'git' }, NOW);
    const queueId = `queue-${q}`;
    const parallel = q % 2 === 1;
    await insertQueue(db, {
      id: queueId,
      repo_id: repo.id,
      target_branch: 'main',
      state: 'RUNNING',
      config: JSON.stringify({ ...DEFAULT_QUEUE_CONFIG, mode: parallel ? 'parallel' : 'single', concurrency: 25 }),
      target_sha: 'base',
      internal: '{}',
      version: 1,
      created_at: NOW,
      updated_at: NOW,
    });
    const trips: Trip[] = [];
    for (let i = 0; i < HISTORY / QUEUES; i++) trips.push(finished(i + 1, parallel));
    for (let i = 0; i < QUEUED / QUEUES; i++) trips.push(queued(HISTORY + i + 1, i, parallel));
    for (const part of chunks(trips, 500)) {
      await upsertEntries(
        db,
        queueId,
        part.map((t) => t.entry),
      );
      await upsertRuns(
        db,
        queueId,
        part.flatMap((t) => (t.run ? [t.run] : [])),
      );
      const rows: NewTransition[] = part.flatMap((t) =>
        t.entry.timeline.map((i) => ({
          queue_id: queueId,
          pr_number: t.entry.prNumber,
          from_state: i.from,
          to_state: i.to,
          reason: i.reason,
          run_id: i.runId ?? null,
          at: i.at,
        })),
      );
      await db.transaction().execute(async (trx) => {
        for (const rowsPart of chunks(rows, 1000)) await insertTransitions(trx, rowsPart);
      });
    }
  }
  return org.id;
}

/** The same families and label sets filled from memory, rendered by prom-client. */
async function baseline(): Promise<{ ms: number; bytes: number }> {
  const m = newQueueMetrics();
  const fill = () => {
    for (let q = 0; q < QUEUES; q++) {
      const repo = `acme/repo-${q}`;
      const branch = 'main';
      for (const queue_type of QUEUE_TYPES) {
        const l = { repo, branch, queue_type };
        for (const g of [m.depth, m.awaiting, m.testing, m.restarts, m.ciRuns]) g.set(l, 7);
        for (const conclusion of CONCLUSIONS) {
          m.conclusions.set({ ...l, conclusion }, 3);
          for (let i = 0; i < 5; i++) m.inQueue.observe({ ...l, conclusion }, 700 + i * 300);
        }
        for (let i = 0; i < 15; i++) {
          m.wait.observe(l, 60 * i);
          m.test.observe(l, 90 * i);
          m.groupSize.observe(l, 1 + (i % 4));
        }
      }
      m.ciRunsPerMerge.set({ repo, branch }, 1.2);
      for (const status of RUN_STATUSES) m.bisectionRuns.set({ repo, branch, status }, 1);
      if (q % 2 === 1) for (let lane = 0; lane < 60; lane++) m.laneDepth.set({ repo, branch, lane: String(lane) }, 2);
    }
  };
  fill();
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 33; i++) {
    const t0 = performance.now();
    bytes = (await m.registry.metrics()).length;
    times.push(performance.now() - t0);
  }
  return { ms: median(times.slice(3)), bytes };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];

const dir = mkdtempSync(path.join(os.tmpdir(), 'greenline-bench-metrics-'));
const db = connect({ databaseUrl: `sqlite:${path.join(dir, 'greenline.db')}`, dataDir: dir });
try {
  await migrateToLatest(db);
  const seedStart = performance.now();
  const orgId = await seed(db);
  console.log(
    `seeded ${HISTORY.toLocaleString('en')} finished + ${QUEUED.toLocaleString('en')} queued entries in ${QUEUES} queues in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const times: number[] = [];
  let text = '';
  for (let i = 0; i < 33; i++) {
    const t0 = performance.now();
    text = await renderMetrics(db, { orgId, now: NOW });
    times.push(performance.now() - t0);
  }
  const measured = times.slice(3);
  const series = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  const base = await baseline();
  const ms = median(measured);
  console.log(
    `scrape: median ${ms.toFixed(1)} ms, p95 ${p95(measured).toFixed(1)} ms (goal < ${GOAL_MS} ms: ${ms < GOAL_MS ? 'met' : 'NOT met'}); ${series} samples, ${(text.length / 1024).toFixed(0)} KiB`,
  );
  console.log(
    `baseline (prom-client rendering the same families from memory): median ${base.ms.toFixed(2)} ms, ${(base.bytes / 1024).toFixed(0)} KiB`,
  );
  console.log(`ratio scrape / baseline: ${(ms / base.ms).toFixed(1)}x`);
} finally {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}
