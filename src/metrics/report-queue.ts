/**
 * Fills the metric families (queue-metrics.ts) for one queue from what the store holds about it.
 * Pure: the caller loads the data and renders the registry.
 *
 * queue_type: a PR is under `bisection` while it is in a part of a failed batch still to be settled
 * (the engine's bisection bookkeeping), a test run by its own queue type, the hourly series as
 * hour-window.ts says; everything else is `main`.
 * Every Trunk series is emitted for both queue types, zeros included (contract §7).
 */
import { frozenSeconds, queueOrder, statusFlakiness } from '../engine/index.js';
import { readInternal } from '../engine/working-state.js';
import { PrState, type QueueSnapshot, type QueueType, type TestRun } from '../engine/types.js';
import type { MetricsTransition } from '../store/metrics-transitions.js';
import { walkPrHistory } from './hour-window.js';
import { lanesOf } from './lanes.js';
import { CONCLUSIONS, QUEUE_TYPES, RUN_STATUSES, type QueueLabels, type QueueMetrics } from './queue-metrics.js';

export interface QueueData {
  /** `owner/name` */
  repo: string;
  /** The queue as the engine sees it: its non-terminal entries, config and bookkeeping. */
  snapshot: QueueSnapshot;
  /** The queue's runs created in the window and its runs still in flight (any age). */
  runs: readonly TestRun[];
  /** The queue's transitions of PRs that moved in the window, grouped by PR, oldest first. */
  transitions: readonly MetricsTransition[];
  /** The time of the scrape. */
  now: number;
}

/** `after`: the window's start (now − 1 h), excluded. */
export function reportQueue(m: QueueMetrics, q: QueueData, after: number): void {
  const { repo, snapshot } = q;
  const branch = snapshot.targetBranch;
  const labels: Record<QueueType, QueueLabels> = {
    main: { repo, branch, queue_type: 'main' },
    bisection: { repo, branch, queue_type: 'bisection' },
  };
  for (const type of QUEUE_TYPES) {
    const l = labels[type];
    for (const conclusion of CONCLUSIONS) {
      m.conclusions.set({ ...l, conclusion }, 0);
      m.inQueue.zero({ ...l, conclusion });
    }
    m.restarts.set(l, 0);
    m.wait.zero(l);
    m.test.zero(l);
    m.ciRuns.set(l, 0);
    m.groupSize.zero(l);
  }
  for (const status of RUN_STATUSES) m.bisectionRuns.set({ repo, branch, status }, 0);
  const internal = readInternal(snapshot);
  m.ciRetries.inc({ repo, branch }, internal.ciRetries);
  m.flakyPasses.inc({ repo, branch }, internal.flakyPasses);
  for (const s of statusFlakiness(snapshot)) {
    m.statusFlakyPasses.inc({ repo, branch, status: s.status }, s.flakyPasses);
    m.statusResults.inc({ repo, branch, status: s.status }, s.results);
    if (s.quarantinedBy !== null) m.statusQuarantined.set({ repo, branch, status: s.status, by: s.quarantinedBy }, 1);
  }

  reportNow(m, labels, q);
  if (snapshot.config.freezes || readInternal(snapshot).frozenMs > 0)
    m.frozenSeconds.inc({ repo, branch }, frozenSeconds(snapshot, q.now));
  const merged = reportHour(m, labels, q.transitions, after);
  const ciRuns = reportRuns(m, labels, q.runs, after);
  if (merged > 0) m.ciRunsPerMerge.set({ repo, branch }, ciRuns / merged);
}

/** Gauges of the queue as it is now: depth, awaiting mergeability, testing slots, lanes. */
function reportNow(m: QueueMetrics, labels: Record<QueueType, QueueLabels>, q: QueueData): void {
  const { snapshot } = q;
  const runType = new Map(q.runs.map((r) => [r.id, r.queueType]));
  const bisecting = new Set(readInternal(snapshot).bisections.flatMap((b) => b.parts.flatMap((p) => p.prNumbers)));
  const count = { depth: { main: 0, bisection: 0 }, testing: { main: 0, bisection: 0 } };
  let awaiting = 0;
  for (const e of snapshot.entries) {
    if (e.state === PrState.NOT_READY) {
      awaiting++;
      continue;
    }
    count.depth[bisecting.has(e.prNumber) ? 'bisection' : 'main']++;
    if (e.state === PrState.TESTING) count.testing[runType.get(e.runId ?? '') ?? 'main']++;
  }
  for (const type of QUEUE_TYPES) {
    m.depth.set(labels[type], count.depth[type]);
    m.testing.set(labels[type], count.testing[type]);
    // NOT_READY PRs have not entered the queue, so none waits in a bisection.
    m.awaiting.set(labels[type], type === 'main' ? awaiting : 0);
  }
  if (snapshot.config.mode !== 'parallel') return;
  for (const lane of lanesOf(queueOrder(snapshot, { includeNotReady: false }))) {
    m.laneDepth.set({ repo: q.repo, branch: snapshot.targetBranch, lane: String(lane.head) }, lane.depth);
  }
}

/** The `_1h` series of PRs; returns how many PRs merged in the window. */
function reportHour(
  m: QueueMetrics,
  labels: Record<QueueType, QueueLabels>,
  transitions: readonly MetricsTransition[],
  after: number,
): number {
  let merged = 0;
  const sink = {
    conclusion(type: QueueType, conclusion: (typeof CONCLUSIONS)[number], secondsInQueue: number | null) {
      m.conclusions.inc({ ...labels[type], conclusion });
      if (secondsInQueue !== null) m.inQueue.observe({ ...labels[type], conclusion }, secondsInQueue);
      if (conclusion === 'merged') merged++;
    },
    restart: (type: QueueType) => m.restarts.inc(labels[type]),
    wait: (type: QueueType, seconds: number) => m.wait.observe(labels[type], seconds),
    test: (type: QueueType, seconds: number) => m.test.observe(labels[type], seconds),
  };
  let start = 0;
  for (let i = 1; i <= transitions.length; i++) {
    if (i < transitions.length && transitions[i].prNumber === transitions[start].prNumber) continue;
    walkPrHistory(transitions.slice(start, i), after, sink);
    start = i;
  }
  return merged;
}

/** The `_1h` series of test runs; returns how many runs created in the window had CI started. */
function reportRuns(
  m: QueueMetrics,
  labels: Record<QueueType, QueueLabels>,
  runs: readonly TestRun[],
  after: number,
): number {
  let started = 0;
  for (const run of runs) {
    if (run.createdAt <= after) continue;
    const l = labels[run.queueType];
    m.groupSize.observe(l, run.prNumbers.length);
    if (run.testSha !== null) {
      m.ciRuns.inc(l);
      started++;
    }
    if (run.queueType === 'bisection') m.bisectionRuns.inc({ repo: l.repo, branch: l.branch, status: run.status });
  }
  return started;
}
