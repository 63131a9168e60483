/**
 * Keeping every run honest (contract §6.1 predictive testing, §6.10 external changes). After each
 * event, every group's run is checked against the queue as it is now; a run whose tested content no
 * longer is what would land restarts its group (back to PENDING, same position):
 *
 * - its base sha is not in the target history we know (target pushed outside the queue);
 * - our own merges since its base are not exactly the PRs at the front of its list (single mode;
 *   in parallel mode, merges of other lanes are allowed and make the merge rebuild, see merging.ts);
 * - it contains a PR that left (failed, cancelled, merged outside) or whose head moved;
 * - it is built on a group known to have failed (`knownToFail`): it would fail too, so it restarts
 *   without it at once instead of running to its failure;
 * - an entry it waits on stands ahead of it without being in it, unless that entry is known to be
 *   failing (PENDING_FAILURE) or under bisection: runs started meanwhile leave those out on purpose.
 *
 * Those rules are for runs that are to verify a merge. A failed group's run and a bisection run in
 * flight only answer whether their content fails; they are judged on that content (`checkEvidence`).
 *
 * The restart reason names the cause (reasons.ts); the event's own reason is the fallback.
 */
import { bisectingSet } from './bisection-state.js';
import type { Draft } from './draft.js';
import { isAdmitted } from './ordering.js';
import { reasonForLeaver, reasonForNewcomer } from './reasons.js';
import { abandonRun, groupKey, isInFlight, isStarting, keepsFailingInBase, mergedSince, samePr } from './runs.js';
import type { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import type { Entry, QueuedReason, TestRun } from './types.js';

export type Verdict = { ok: true; rebuild: boolean } | { ok: false; reason: QueuedReason };

/** Entries a new run may leave out of its base, and an existing run may lack. */
export function isSkippable(e: Entry, bisecting: ReadonlySet<number>): boolean {
  return e.state === 'PENDING_FAILURE' || bisecting.has(e.prNumber);
}

/** Everything the members of a group wait on, in queue order, without the group itself. */
export function dependenciesOf(topo: Topology, group: readonly Entry[]): Entry[] {
  const own = new Set(group.map((e) => e.prNumber));
  if (group.length === 1) return topo.ancestors(group[0].prNumber);
  const seen = new Map<number, Entry>();
  for (const m of group) for (const a of topo.ancestors(m.prNumber)) if (!own.has(a.prNumber)) seen.set(a.prNumber, a);
  return [...seen.values()].sort((a, b) => topo.position(a.prNumber) - topo.position(b.prNumber));
}

/**
 * A group ahead whose own run failed, that a run built on it cannot outlive: under bisection (the
 * batch failed, its parts are being tested), or in PENDING_FAILURE when no later pass can vouch for it
 * (optimistic merging off) and nothing waits for one (pending failure depth 0), or in PENDING_FAILURE
 * while its retry runs (stepped out of the chain by evidence, ci-retries.ts) unless anti-flake keeps
 * failing groups in the base. A run that includes it would fail the same way; it restarts without it
 * at once.
 */
export function knownToFail(d: Draft, e: Entry, bisecting: ReadonlySet<number>): boolean {
  if (bisecting.has(e.prNumber)) return true;
  if (e.state !== 'PENDING_FAILURE') return false;
  if (!d.config.canOptimisticallyMerge && d.config.pendingFailureDepth === 0) return true;
  return isSteppedOut(d, e) && !keepsFailingInBase(d);
}

/**
 * A group in PENDING_FAILURE whose run is still in flight: a failed run whose retry runs while the
 * group stands out of the chain (ci-retries.ts). Failed runs are otherwise finished.
 */
export function isSteppedOut(d: Draft, e: Entry): boolean {
  return e.state === 'PENDING_FAILURE' && isInFlight(d.run(e.runId));
}

export function checkRun(
  d: Draft,
  topo: Topology,
  run: TestRun,
  bisecting: ReadonlySet<number>,
  fallback: QueuedReason,
): Verdict {
  // While the target's sha is unknown (a merge result without it) runs are judged on their content
  // only; the next sighting restarts those built on another sha.
  const merged = d.internal.targetHistory.length === 0 ? [] : mergedSince(d, run.baseSha);
  if (merged === null) return { ok: false, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' };
  const inRun = new Set(run.prs.map((p) => p.number));
  const relevant = merged.filter((p) => inRun.has(p.number));
  const foreign = merged.length - relevant.length;
  if (foreign > 0 && d.config.mode !== 'parallel') {
    const newcomer = d.entry(merged.find((p) => !inRun.has(p.number))!.number);
    return { ok: false, reason: newcomer ? reasonForNewcomer(newcomer, fallback) : fallback };
  }
  for (let i = 0; i < relevant.length; i++) {
    if (!samePr(relevant[i], run.prs[i])) return { ok: false, reason: fallback };
  }
  const own = new Set(run.prNumbers);
  const rest = run.prs.slice(relevant.length);
  for (const p of rest) {
    const e = d.entry(p.number);
    if (!e || !isAdmitted(e) || e.headSha !== p.headSha) return { ok: false, reason: reasonForLeaver(e, fallback) };
    if (!own.has(p.number) && knownToFail(d, e, bisecting))
      return { ok: false, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' };
  }
  const groupNow = rest.filter((p) => own.has(p.number)).map((p) => d.entry(p.number)!);
  if (groupNow.length === 0) return { ok: false, reason: fallback };
  const deps = dependenciesOf(topo, groupNow);
  const skippable = (e: Entry): boolean => isSkippable(e, bisecting);
  let k = 0;
  for (const p of rest) {
    if (own.has(p.number)) continue;
    while (k < deps.length && deps[k].prNumber !== p.number) {
      if (!skippable(deps[k])) return { ok: false, reason: reasonForNewcomer(deps[k], fallback) };
      k++;
    }
    if (k === deps.length) return { ok: false, reason: fallback }; // no longer something it waits on
    k++;
  }
  for (; k < deps.length; k++) {
    if (!skippable(deps[k])) return { ok: false, reason: reasonForNewcomer(deps[k], fallback) };
  }
  return { ok: true, rebuild: foreign > 0 };
}

/** A group whose run only answers "did this content fail?": failed (PENDING_FAILURE), or a bisection part under test. */
export function isEvidence(run: TestRun, members: readonly Entry[]): boolean {
  return members.every((m) => m.state === 'PENDING_FAILURE') || (run.queueType === 'bisection' && isInFlight(run));
}

/**
 * Whether a run that only answers "did this content fail?" still does: the failed run of a group in
 * PENDING_FAILURE (the evidence blame is settled on, failure.ts) and a bisection run in flight (a blame
 * test, bisection.ts). It does while every PR it was built on is still queued with the same head or was
 * merged by the queue, none of them is known to fail, and the target was not pushed from outside since.
 * Merges of groups it did not include and newcomers ahead change what would land, not what it tested:
 * they matter only when such a run is to verify a merge (`checkRun`).
 */
export function checkEvidence(
  d: Draft,
  topo: Topology,
  run: TestRun,
  group: readonly Entry[],
  bisecting: ReadonlySet<number>,
  fallback: QueuedReason,
): Verdict {
  const merged = d.internal.targetHistory.length === 0 ? [] : mergedSince(d, run.baseSha);
  if (merged === null) return { ok: false, reason: 'MANUAL_PUSH_TO_TARGET_BRANCH' };
  const landed = new Map(merged.map((p) => [p.number, p.headSha]));
  const own = new Set(run.prNumbers);
  // A failed group waits for what its run was built on to settle (failure.ts): one of those now
  // behind it in the queue waits, in turn, on the group. The failure is tested again in today's order.
  if (run.queueType === 'main') {
    const first = Math.min(...group.map((m) => topo.position(m.prNumber)));
    if (run.prs.some((p) => !own.has(p.number) && !landed.has(p.number) && topo.position(p.number) > first)) {
      return { ok: false, reason: fallback };
    }
  }
  let members = 0;
  for (const p of run.prs) {
    if (landed.has(p.number)) {
      if (landed.get(p.number) !== p.headSha) return { ok: false, reason: fallback };
      continue;
    }
    const e = d.entry(p.number);
    if (!e || !isAdmitted(e) || e.headSha !== p.headSha) return { ok: false, reason: reasonForLeaver(e, fallback) };
    if (own.has(p.number)) members++;
    else if (knownToFail(d, e, bisecting)) return { ok: false, reason: 'PREREQUISITE_MERGE_ITEM_FAILED' };
  }
  return members > 0 ? { ok: true, rebuild: false } : { ok: false, reason: fallback };
}

/** The run each admitted entry's fate hangs on, grouped: run id → members, in queue order. */
export function activeGroups(d: Draft, topo: Topology): Map<string, Entry[]> {
  const groups = new Map<string, Entry[]>();
  for (const e of topo.started) {
    if (e.state === 'PENDING' && !isStarting(d, e)) continue;
    const key = e.state === 'PENDING' ? e.runId! : groupKey(e);
    const list = groups.get(key);
    if (list) list.push(e);
    else groups.set(key, [e]);
  }
  return groups;
}

/** Restarts every group whose run became invalid. Returns whether anything changed. */
export function sweepRuns(d: Draft, topo: Topology, fallback: QueuedReason): boolean {
  const bisecting = bisectingSet(d);
  const merging = d.internal.merge;
  const mergingPrs = new Set(merging?.prs.map((p) => p.number) ?? []);
  let changed = false;
  for (const [runId, members] of activeGroups(d, topo)) {
    if (merging && (runId === merging.runId || members.some((m) => mergingPrs.has(m.prNumber)))) continue;
    const run = d.run(runId);
    const verdict = !run
      ? { ok: false as const, reason: fallback }
      : isEvidence(run, members)
        ? checkEvidence(d, topo, run, members, bisecting, fallback)
        : checkRun(d, topo, run, bisecting, fallback);
    if (!verdict.ok) {
      restartGroup(d, run, members, verdict.reason);
      changed = true;
    }
  }
  return changed;
}

/**
 * Sends a group back to PENDING (it keeps its queue position) and stops its run if it is still
 * building or testing. A bisection part goes back to waiting for a bisection slot.
 */
export function restartGroup(
  d: Draft,
  run: TestRun | undefined,
  members: readonly Entry[],
  reason: QueuedReason,
): void {
  if (run && isInFlight(run)) abandonRun(d, run);
  if (run?.queueType === 'bisection') {
    for (const b of d.internal.bisections) for (const p of b.parts) if (p.runId === run.id) p.runId = null;
  }
  const moved: number[] = [];
  for (const m of members) {
    const e = d.entry(m.prNumber)!;
    if (e.state === 'PENDING') continue;
    move(d, e, 'PENDING', reason, { patch: { verifiedByTestRun: null } });
    moved.push(e.prNumber);
  }
  if (run) emitBatchEvent(d, 'pull_request_batch.queued', moved, d.run(run.id)!, reason);
  d.touch();
}
