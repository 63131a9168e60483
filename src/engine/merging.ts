/**
 * Merging (contract §6.2, §6.4; DESIGN §3 "Merging").
 *
 * A group merges once it passed and everything it waits on either merged or passed and is part of
 * the same tested state: the merge takes the succeeded run whose not-yet-merged PRs are exactly
 * passed entries covering everything the group waits on, and advances the target from exactly the
 * current sha to that run's test commit (`merge` effect, compare-and-swap). When several runs
 * qualify, the one merging the most PRs wins. At most one merge is in flight per queue; a paused
 * queue merges nothing. A batch under bisection that the run left out is not waited for: it stepped
 * out of the merge order when it failed (bisection.ts, policy 2), and the merge is recorded on it.
 *
 * The target-branch invariant: a run is merged only onto the sha its test commit was built on, or
 * onto a sha that our own merges produced from it by merging exactly the PRs at the front of its
 * list (validity.ts) — so the tree after the merge is the tree the run tested.
 *
 * Parallel mode: a lane's merge moves the target under the runs of other lanes. Those runs stay
 * valid (their PRs do not overlap) but their test commits no longer sit on the target, so their
 * merge first rebuilds the group's PRs on the current target (a `createTestBranch` with a fresh id,
 * no CI) and merges that commit, which descends from the current target: nothing merged by another
 * lane is ever dropped. A conflict while rebuilding restarts the group on the new target. The tree
 * of such a merge was not tested as a whole; that is the bargain parallel mode makes (contract
 * §6.7), and the invariant above is promised for single mode only.
 */
import { recordMerges } from './adaptive.js';
import type { Draft } from './draft.js';
import { mayMerge } from './freeze.js';
import { bisectingSet } from './bisection-state.js';
import { applyTargetMove } from './target.js';
import { testBranchName } from './test-branch.js';
import { headOf, mergedSince, samePr } from './runs.js';
import type { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import { activeGroups, checkRun, dependenciesOf, restartGroup } from './validity.js';
import { isTerminal, type EngineEvent, type Rejection, type RunPr, type TestRun } from './types.js';

/** Emits the next merge when one is possible. Returns whether anything changed. */
export function tryMerge(d: Draft, topo: Topology): boolean {
  if (d.internal.merge || d.state === 'PAUSED' || d.targetSha === null) return false;
  const bisecting = bisectingSet(d);
  let best: { run: TestRun; prs: RunPr[]; rebuild: boolean; past: number[] } | null = null;
  for (const [runId, members] of activeGroups(d, topo)) {
    if (!members.every((m) => m.state === 'TESTS_PASSED')) continue;
    const run = d.run(runId);
    if (run?.status !== 'succeeded' || run.testSha === null) continue;
    const verdict = checkRun(d, topo, run, bisecting, 'PREREQUISITE_MERGE_ITEM_FAILED');
    if (!verdict.ok) continue;
    const merged = new Set((mergedSince(d, run.baseSha) ?? []).map((p) => p.number));
    const prs = run.prs.filter((p) => !merged.has(p.number));
    if (!prs.every((p) => d.entry(p.number)?.state === 'TESTS_PASSED')) continue;
    const inRun = new Set(prs.map((p) => p.number));
    const group = members.filter((m) => run.prNumbers.includes(m.prNumber));
    if (
      !mayMerge(
        d,
        prs.map((p) => d.entry(p.number)!),
      )
    )
      continue; // frozen (freeze.ts)
    // A batch under bisection that the run left out does not hold it back (bisection.ts, policy 2).
    const left = dependenciesOf(topo, group).filter((e) => !inRun.has(e.prNumber));
    if (!left.every((e) => bisecting.has(e.prNumber))) continue;
    if (!best || prs.length > best.prs.length)
      best = { run, prs, rebuild: verdict.rebuild, past: left.map((e) => e.prNumber) };
  }
  if (!best) return false;
  for (const b of d.internal.bisections) {
    if (b.members.some((n) => best.past.includes(n))) b.overtakenBy.push(...best.prs.map((p) => p.number));
  }
  const expectedTargetSha = d.targetSha;
  if (best.rebuild) {
    const id = d.ctx.newId();
    const branch = testBranchName(d.base.testBranchPrefix, best.run.prNumbers, id);
    d.internal.merge = { runId: best.run.id, prs: best.prs, expectedTargetSha, rebuild: { id, branch, sha: null } };
    d.emit({
      kind: 'createTestBranch',
      key: `${id}:createTestBranch`,
      runId: id,
      branch,
      baseSha: expectedTargetSha,
      prs: best.prs,
    });
  } else {
    d.internal.merge = { runId: best.run.id, prs: best.prs, expectedTargetSha, rebuild: null };
    emitMerge(d, best.run.testSha!);
  }
  d.touch();
  return true;
}

function emitMerge(d: Draft, testSha: string): void {
  const m = d.internal.merge!;
  d.emit({
    kind: 'merge',
    key: `${m.runId}:merge:${m.expectedTargetSha}`,
    runId: m.runId,
    expectedTargetSha: m.expectedTargetSha,
    testSha,
    prs: m.prs,
    method: d.config.mergeMethod,
  });
}

/** The rebuilt commit of a parallel-mode merge exists: merge it. */
export function rebuildCreated(d: Draft, sha: string): void {
  const m = d.internal.merge!;
  m.rebuild = { ...m.rebuild!, sha };
  emitMerge(d, sha);
}

/** The group's PRs no longer apply cleanly on the moved target: test them again on it. */
export function rebuildFailed(d: Draft, topo: Topology): void {
  const m = d.internal.merge!;
  d.internal.merge = null;
  d.emit({
    kind: 'deleteTestBranch',
    key: `${m.rebuild!.id}:deleteTestBranch`,
    runId: m.rebuild!.id,
    branch: m.rebuild!.branch,
  });
  const members = activeGroups(d, topo).get(m.runId) ?? [];
  restartGroup(d, d.run(m.runId), members, 'MANUAL_PUSH_TO_TARGET_BRANCH');
  settleDeferredTarget(d);
}

type MergedEvent = Extract<EngineEvent, { kind: 'merged' }>;
type MergeFailedEvent = Extract<EngineEvent, { kind: 'mergeFailed' }>;

/** Checks a merge result names the merge in flight. */
export function checkMergeEvent(d: Draft, ev: MergedEvent | MergeFailedEvent): Rejection | null {
  const m = d.internal.merge;
  if (!m || m.runId !== ev.runId) {
    return d.run(ev.runId)
      ? { code: 'STALE_RUN_EVENT', message: `no merge of run ${ev.runId} is in flight` }
      : { code: 'RUN_NOT_FOUND', message: `unknown test run ${ev.runId}` };
  }
  const expected = m.prs
    .map((p) => p.number)
    .sort((a, b) => a - b)
    .join(',');
  const got = [...ev.prNumbers].sort((a, b) => a - b).join(',');
  if (expected !== got) {
    return {
      code: 'INVALID_EVENT',
      message: `merge of run ${ev.runId} was for PRs ${expected}, the result names ${got}`,
    };
  }
  return null;
}

export function onMerged(d: Draft, ev: MergedEvent): void {
  const m = d.internal.merge!;
  d.internal.merge = null;
  recordOwnMerge(d, ev.newTargetSha, m.prs);
  if (m.direct) {
    const e = d.entry(m.prs[0].number);
    if (e && !isTerminal(e.state)) move(d, e, 'MERGED', 'MERGE_GRAPH_DIRECT_MERGE');
  } else {
    markMerged(d, m.prs, m.runId, ev.detail);
  }
  if (m.rebuild)
    d.emit({
      kind: 'deleteTestBranch',
      key: `${m.rebuild.id}:deleteTestBranch`,
      runId: m.rebuild.id,
      branch: m.rebuild.branch,
    });
  settleDeferredTarget(d);
}

export function onMergeFailed(d: Draft, ev: MergeFailedEvent): void {
  const m = d.internal.merge!;
  d.internal.merge = null;
  if (m.rebuild)
    d.emit({
      kind: 'deleteTestBranch',
      key: `${m.rebuild.id}:deleteTestBranch`,
      runId: m.rebuild.id,
      branch: m.rebuild.branch,
    });
  const done = new Set(ev.mergedPrNumbers ?? []);
  let prefix = 0;
  while (prefix < m.prs.length && done.has(m.prs[prefix].number)) prefix++;
  const merged = m.prs.slice(0, prefix);
  if (ev.reason === 'TARGET_MOVED') {
    // The target moved under us, like a push from outside (contract §6.10). PRs the merge reports
    // merged before it found the target moved (an attempt whose answer was lost, then tried again)
    // are the queue's own merges, even when a sighting of them arrived first.
    markMerged(d, merged, m.runId);
    const sha = ev.newTargetSha ?? d.internal.deferredTargetSha;
    if (sha) d.internal.deferredTargetSha = sha;
    else forgetTarget(d);
    settleDeferredTarget(d);
    return;
  }
  if (m.direct) {
    const e = d.entry(m.prs[0].number);
    const reason = ev.reason === 'PR_UPDATED_AT_MERGE_TIME' ? ev.reason : 'DIRECT_MERGE_REFUSED';
    if (e && !isTerminal(e.state)) move(d, e, 'FAILED', reason, ev.detail !== undefined ? { detail: ev.detail } : {});
    settleDeferredTarget(d);
    return;
  }
  if (merged.length > 0) {
    if (ev.newTargetSha) recordOwnMerge(d, ev.newTargetSha, merged);
    else forgetTarget(d);
    markMerged(d, merged, m.runId);
  }
  const culprit = m.prs[prefix] ? d.entry(m.prs[prefix].number) : undefined;
  if (culprit && culprit.state === 'TESTS_PASSED') {
    move(d, culprit, 'FAILED', ev.reason, ev.detail !== undefined ? { detail: ev.detail } : {});
  }
  // The others of the merge were not at fault: the validity sweep restarts them without the culprit.
  settleDeferredTarget(d);
}

function recordOwnMerge(d: Draft, sha: string, prs: RunPr[]): void {
  d.targetSha = sha;
  if (d.internal.targetHistory.length === 0) d.internal.targetHistory = [{ sha, prs: [] }];
  else d.internal.targetHistory.push({ sha, prs });
}

/** The target's sha is unknown until the next sighting: no run starts, no merge is attempted. */
function forgetTarget(d: Draft): void {
  d.targetSha = null;
  d.internal.targetHistory = [];
}

/**
 * Tested PRs merged by the queue: MERGED (with the forge's `detail` of how, when it gave one), a batch
 * event per whole group, and a measurement per PR.
 */
function markMerged(d: Draft, prs: RunPr[], runId: string, detail?: string): void {
  const byRun = new Map<string, number[]>();
  let merged = 0;
  for (const p of prs) {
    const e = d.entry(p.number);
    if (e?.state !== 'TESTS_PASSED' || !samePr(headOf(e), p)) continue;
    move(d, e, 'MERGED', 'MERGE_GRAPH_MERGE', {
      patch: { verifiedByTestRun: e.verifiedByTestRun ?? runId },
      ...(detail !== undefined ? { detail } : {}),
    });
    merged++;
    if (e.runId) byRun.set(e.runId, [...(byRun.get(e.runId) ?? []), e.prNumber]);
  }
  recordMerges(d, merged);
  for (const [id, numbers] of byRun) {
    const run = d.run(id);
    if (run?.prNumbers.every((n) => d.entry(n)?.state === 'MERGED')) {
      emitBatchEvent(d, 'pull_request_batch.merged', numbers, run, 'MERGE_GRAPH_MERGE');
    }
  }
}

/**
 * Sightings that arrived while the merge was in flight: PRs merged outside (unless our merge merged
 * them after all) and the target's sha (unless it is the one our merge produced).
 */
function settleDeferredTarget(d: Draft): void {
  for (const n of d.internal.deferredMergedOutside) {
    const e = d.entry(n);
    if (e && !isTerminal(e.state)) move(d, e, 'MERGED', 'MANUAL_MERGE');
  }
  d.internal.deferredMergedOutside = [];
  const sha = d.internal.deferredTargetSha;
  d.internal.deferredTargetSha = null;
  if (sha !== null && sha !== d.targetSha) applyTargetMove(d, sha);
}
