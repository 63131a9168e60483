/**
 * After an event changed the snapshot, the queue settles: admission, validity of every run, blame
 * for failures, merging, and starting runs repeat until nothing changes. Then runs nobody needs any
 * more are stopped and their branches deleted; when that stopped a run, its test slot is free and the
 * queue settles again, so the slot is used in the same decision. Then the next wakeup is requested.
 */
import { scheduleBisections } from './bisection.js';
import type { Draft } from './draft.js';
import { resolvePendingFailures } from './failure.js';
import { announceFreeze } from './freeze.js';
import { reviewQuarantine } from './quarantine.js';
import { tryMerge } from './merging.js';
import { completeModeSwitch } from './queue-control.js';
import { isReady } from './readiness.js';
import { admitsPrs } from './queue-states.js';
import { abandonRun, isInFlight } from './runs.js';
import { screenRiskyPrs } from './risk.js';
import { schedule } from './scheduling.js';
import { requestWakeup } from './timers.js';
import { rememberIndex, Topology } from './topology.js';
import { move } from './transitions.js';
import { readInternal, type EngineInternal } from './working-state.js';
import { isTerminal, type Entry, type QueuedReason, type QueueSnapshot } from './types.js';
import { sweepRuns } from './validity.js';

const MAX_ROUNDS = 1000;

export function settle(d: Draft, fallback: QueuedReason): void {
  let batchDeadline: number | null = null;
  announceFreeze(d);
  reviewQuarantine(d);
  for (let pass = 0; pass < MAX_ROUNDS; pass++) {
    batchDeadline = settleRounds(d, fallback);
    const before = d.version;
    cleanUpRuns(d);
    if (d.version === before) break; // no run was stopped: no slot was freed
  }
  trimHistory(d);
  requestWakeup(d, batchDeadline);
  d.onFinish = (entries) => {
    rememberIndex(d, entries);
    ENTRY_RUN_REFS.set(entries, draftRunRefs(d));
  };
}

/** The rounds until nothing changes; returns when a batch waiting to fill must start anyway. */
function settleRounds(d: Draft, fallback: QueuedReason): number | null {
  const current = (): Topology => Topology.of(d);
  let batchDeadline: number | null = null;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const before = d.version;
    admit(d);
    sweepRuns(d, current(), fallback);
    resolvePendingFailures(d, current());
    tryMerge(d, current());
    screenRiskyPrs(d);
    scheduleBisections(d, current());
    batchDeadline = schedule(d, current()).batchDeadline;
    completeModeSwitch(d);
    if (d.version === before) break;
  }
  return batchDeadline;
}

/** NOT_READY → PENDING for every ready entry, while the queue is RUNNING (contract §5.2). */
function admit(d: Draft): void {
  if (!admitsPrs(d.state)) return;
  for (const e of [...d.allEntries()]) {
    if (e.state === 'NOT_READY' && isReady({ targetBranch: d.base.targetBranch, config: d.config }, e)) {
      move(d, e, 'PENDING', 'MERGE_ITEM_NOW_READY', { patch: { admittedAt: d.at } });
    }
  }
}

/**
 * How many non-terminal entries refer to each run (as their run or the run that verified them), per
 * entries array of a snapshot a decision returned: the next decision starts from its input's counts.
 */
const ENTRY_RUN_REFS = new WeakMap<readonly Entry[], ReadonlyMap<string, number>>();

function countRefs(e: Entry | undefined, into: Map<string, number>, by: 1 | -1): void {
  if (!e || isTerminal(e.state)) return;
  if (e.runId) into.set(e.runId, (into.get(e.runId) ?? 0) + by);
  if (e.verifiedByTestRun) into.set(e.verifiedByTestRun, (into.get(e.verifiedByTestRun) ?? 0) + by);
}

function entryRunRefs(entries: readonly Entry[]): ReadonlyMap<string, number> {
  let refs = ENTRY_RUN_REFS.get(entries);
  if (!refs) {
    const counted = new Map<string, number>();
    for (const e of entries) countRefs(e, counted, 1);
    ENTRY_RUN_REFS.set(entries, counted);
    refs = counted;
  }
  return refs;
}

/** The counts for the draft's entries: its input's, corrected for the entries this decision put. */
function draftRunRefs(d: Draft): ReadonlyMap<string, number> {
  const base = entryRunRefs(d.base.entries);
  if (d.changedEntries.size === 0) return base;
  const refs = new Map(base);
  for (const n of d.changedEntries) {
    countRefs(d.baseEntry(n), refs, -1);
    countRefs(d.entry(n), refs, 1);
  }
  return refs;
}

/** The runs the engine's own bookkeeping refers to: the merge in flight, the parts of bisections. */
function ownRunRefs(internal: EngineInternal): Set<string> {
  const own = new Set<string>();
  if (internal.merge) own.add(internal.merge.runId);
  for (const b of internal.bisections) for (const p of b.parts) if (p.runId) own.add(p.runId);
  return own;
}

/** Whether an entry or the engine's own bookkeeping (the merge, bisections) still refers to a run. */
function referencedBy(entryRefs: ReadonlyMap<string, number>, internal: EngineInternal): (runId: string) => boolean {
  const own = ownRunRefs(internal);
  return (runId) => (entryRefs.get(runId) ?? 0) > 0 || own.has(runId);
}

/**
 * Ids of the runs whose test branches the queue still needs: runs in flight, runs an entry or the
 * engine's bookkeeping refers to, and the rebuild of the merge in flight (parallel mode). The branch
 * of any other run of the queue is one the engine deleted or will not use again.
 */
export function runsInUse(s: QueueSnapshot): Set<string> {
  const internal = readInternal(s);
  const ids = ownRunRefs(internal);
  for (const [id, n] of entryRunRefs(s.entries)) if (n > 0) ids.add(id);
  for (const run of s.runs) if (isInFlight(run)) ids.add(run.id);
  if (internal.merge?.rebuild) ids.add(internal.merge.rebuild.id);
  return ids;
}

/**
 * A run nobody refers to any more is stopped if still in flight, and its test branch deleted, once:
 * when it stops being needed (settle calls this again after using the slots it freed: a run already
 * stopped changes nothing then, and its deletion is emitted once per key). A run this decision created and then dropped (restarted, or no longer
 * referred to: something settled later in the same decision changed what it should include) is
 * withdrawn instead: its effects are taken back, so no branch is built for it.
 */
function cleanUpRuns(d: Draft): void {
  const before = referencedBy(entryRunRefs(d.base.entries), readInternal(d.base));
  const now = referencedBy(draftRunRefs(d), d.internal);
  const runs = [...d.allRuns()];
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    const created = i >= d.base.runs.length; // the draft appends the runs it creates
    if (created && (run.status === 'cancelled' || !now(run.id))) {
      abandonRun(d, run);
      d.withdraw(run.id);
      continue;
    }
    if (now(run.id)) continue;
    const wasNeeded = before(run.id) || isInFlight(run);
    if (isInFlight(run)) abandonRun(d, run);
    if (wasNeeded)
      d.emit({ kind: 'deleteTestBranch', key: `${run.id}:deleteTestBranch`, runId: run.id, branch: run.testBranch });
  }
}

/** History older than the oldest base still in use can go (the last step always stays). */
function trimHistory(d: Draft): void {
  const h = d.internal.targetHistory;
  // Bisections compare content keys anchored at the first step: keep the history while one runs.
  if (h.length <= 1 || d.internal.bisections.length > 0) return;
  const used = referencedBy(draftRunRefs(d), d.internal);
  let oldest = h.length - 1;
  for (const run of d.allRuns()) {
    if (!used(run.id)) continue;
    const i = h.findIndex((s) => s.sha === run.baseSha);
    if (i >= 0 && i < oldest) oldest = i;
  }
  if (oldest > 0) d.internal.targetHistory = h.slice(oldest);
}
