/**
 * After an event changed the snapshot, the queue settles: admission, validity of every run, blame
 * for failures, merging, and starting runs repeat until nothing changes. Then runs nobody needs any
 * more are stopped and their branches deleted, and the next wakeup is requested.
 */
import { scheduleBisections } from './bisection.js';
import type { Draft } from './draft.js';
import { resolvePendingFailures } from './failure.js';
import { tryMerge } from './merging.js';
import { completeModeSwitch } from './queue-control.js';
import { isReady } from './readiness.js';
import { abandonRun, isInFlight } from './runs.js';
import { schedule } from './scheduling.js';
import { requestWakeup } from './timers.js';
import { rememberIndex, Topology } from './topology.js';
import { move } from './transitions.js';
import { readInternal, type EngineInternal } from './internal.js';
import { isTerminal, type Entry, type QueuedReason } from './types.js';
import { sweepRuns } from './validity.js';

const MAX_ROUNDS = 1000;

export function settle(d: Draft, fallback: QueuedReason): void {
  const current = (): Topology => Topology.of(d);
  let batchDeadline: number | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = d.version;
    admit(d);
    sweepRuns(d, current(), fallback);
    resolvePendingFailures(d, current());
    tryMerge(d, current());
    scheduleBisections(d, current());
    batchDeadline = schedule(d, current()).batchDeadline;
    completeModeSwitch(d);
    if (d.version === before) break;
  }
  cleanUpRuns(d);
  trimHistory(d);
  requestWakeup(d, batchDeadline);
  d.onFinish = (entries) => rememberIndex(d, entries);
}

/** NOT_READY → PENDING for every ready entry, while the queue is RUNNING (contract §5.2). */
function admit(d: Draft): void {
  if (d.state !== 'RUNNING') return;
  for (const e of [...d.allEntries()]) {
    if (e.state === 'NOT_READY' && isReady({ targetBranch: d.base.targetBranch, config: d.config }, e)) {
      move(d, e, 'PENDING', 'MERGE_ITEM_NOW_READY', { patch: { admittedAt: d.at } });
    }
  }
}

function referencedRuns(entries: readonly Entry[], internal: EngineInternal): Set<string> {
  const out = new Set<string>();
  for (const e of entries) {
    if (isTerminal(e.state)) continue;
    if (e.runId) out.add(e.runId);
    if (e.verifiedByTestRun) out.add(e.verifiedByTestRun);
  }
  if (internal.merge) out.add(internal.merge.runId);
  for (const b of internal.bisections) for (const p of b.parts) if (p.runId) out.add(p.runId);
  return out;
}

/**
 * A run nobody refers to any more is stopped if still in flight, and its test branch deleted, once:
 * when it stops being needed (or right away if it was created and dropped in this decision).
 */
function cleanUpRuns(d: Draft): void {
  const before = referencedRuns(d.base.entries, readInternal(d.base));
  const baseIds = new Set(d.base.runs.map((r) => r.id));
  const now = referencedRuns(d.allEntries(), d.internal);
  for (const run of [...d.allRuns()]) {
    if (now.has(run.id)) continue;
    const wasNeeded = before.has(run.id) || !baseIds.has(run.id) || isInFlight(run);
    if (isInFlight(run)) abandonRun(d, run);
    if (wasNeeded) d.emit({ kind: 'deleteTestBranch', key: `${run.id}:deleteTestBranch`, runId: run.id, branch: run.testBranch });
  }
}

/** History older than the oldest base still in use can go (the last step always stays). */
function trimHistory(d: Draft): void {
  const h = d.internal.targetHistory;
  // Bisections compare content keys anchored at the first step: keep the history while one runs.
  if (h.length <= 1 || d.internal.bisections.length > 0) return;
  const used = referencedRuns(d.allEntries(), d.internal);
  let oldest = h.length - 1;
  for (const id of used) {
    const run = d.run(id);
    const i = run ? h.findIndex((s) => s.sha === run.baseSha) : -1;
    if (i >= 0 && i < oldest) oldest = i;
  }
  if (oldest > 0) d.internal.targetHistory = h.slice(oldest);
}
