/**
 * Bisection of failed batches (contract §6.3; open question 18 leaves how cleared PRs re-enter the
 * queue to us). The policy, chosen so that one failed batch costs its bisection and nothing more:
 *
 * 1. A batch whose failure is its own (failure.ts) splits into halves, tested on the bisection budget
 *    (`bisectionConcurrency`, queue type `bisection`). A part is a blame test: it is built on the
 *    target plus only what ahead of it has passed (TESTS_PASSED), so that its failure is its own.
 * 2. From that moment the batch is known to fail: every run built on it restarts at once without it
 *    (validity.ts `knownToFail`), as runs built on a failed single PR do, and it steps out of the merge
 *    order: groups behind it that were tested without it merge when they pass (merging.ts) instead of
 *    waiting for the bisection. Its parts' runs keep answering their question meanwhile: only the PRs
 *    they contain matter to them (validity.ts `checkEvidence`).
 * 3. A failing part of one PR found a culprit (FAILED with the run's reason); a larger one splits again.
 * 4. A passing part's run was a real test of its PRs on top of what it included. It counts as their
 *    test (TESTS_PASSED, `verifiedByTestRun` = that run) when it still holds at their position — what it
 *    included ahead has merged or is still ahead, nothing else that is not known to fail stands ahead,
 *    nothing merged past the batch since it started — and keeping it throws away less CI time than
 *    testing them again: the groups behind them whose runs left them out (they restart on top of them,
 *    BISECTION_TEST_RUN_PASSED) used less CI time together than the part's own run. Otherwise the PRs go
 *    back to PENDING (BISECTION_TEST_RUN_PASSED) just behind those groups, whose runs stay valid, and
 *    are tested again in the main queue. Either way, nothing restarts twice for one cleared part.
 *
 * With a full queue the groups behind outweigh a part, so cleared PRs are retested behind them; with
 * few groups behind (a quiet queue, a batch at the back) the part's run is their test.
 *
 * `optimizationMode = bisection_skip_redundant_tests`: a part whose run would test exactly the content
 * of a run of this bisection that already failed (same anchor and PR heads, e.g. the second half on
 * top of a cleared first half = the whole batch) is not run again (only test failures are reused,
 * not timeouts or start errors): one PR → FAILED with
 * TEST_RUN_FAILED_BY_OPTIMIZATION, several → split at once. Passes are never reused.
 */
import { bisectingSet, bisectionOfRun } from './bisection-state.js';
import type { Draft } from './draft.js';
import type { BisectionPart } from './internal.js';
import { contentKey, headOf, isInFlight, membersOf, mergedSince, startRun } from './runs.js';
import { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import { activeGroups, checkRun, dependenciesOf, isEvidence, restartGroup } from './validity.js';
import type { Entry, FailureReason, TestRun } from './types.js';

/** Only a failed test says something about the tree; a timeout or a start error does not. */
const reusable = (reason: FailureReason | null): boolean => reason === 'TEST_RUN_REQUIRED_STATUS_FAILED';

function halves(prNumbers: number[]): BisectionPart[] {
  const cut = Math.ceil(prNumbers.length / 2);
  return [{ prNumbers: prNumbers.slice(0, cut), runId: null }, { prNumbers: prNumbers.slice(cut), runId: null }];
}

export function startBisection(d: Draft, run: TestRun, members: Entry[]): void {
  const numbers = members.map((m) => m.prNumber);
  d.internal.bisections.push({
    id: `bisect-${run.id}`,
    members: numbers,
    failedKeys: reusable(run.failureReason) ? [contentKey(d, run.baseSha, run.prs)] : [],
    parts: halves(numbers),
    overtakenBy: [],
  });
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_REQUIRED');
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_REQUIRED');
}

/** Starts bisection runs while the bisection budget allows. Returns whether anything changed. */
export function scheduleBisections(d: Draft, topo: Topology): boolean {
  const target = d.targetSha;
  if (d.state === 'PAUSED' || target === null) return false;
  let free = d.config.bisectionConcurrency - d.allRuns().filter((r) => r.queueType === 'bisection' && isInFlight(r)).length;
  for (const b of d.internal.bisections) {
    for (let i = 0; i < b.parts.length; i++) {
      const part = b.parts[i];
      if (part.runId !== null) continue;
      const group = part.prNumbers.map((n) => d.entry(n)!);
      const deps = dependenciesOf(topo, group).filter((e) => e.state === 'TESTS_PASSED');
      const key = contentKey(d, target, [...deps.map(headOf), ...group.map(headOf)]);
      if (d.config.optimizationMode === 'bisection_skip_redundant_tests' && b.failedKeys.includes(key)) {
        if (group.length === 1) {
          b.parts.splice(i, 1);
          move(d, group[0], 'FAILED', 'TEST_RUN_FAILED_BY_OPTIMIZATION', { detail: 'the same change already failed on the same base in this bisection' });
        } else {
          b.parts.splice(i, 1, ...halves(part.prNumbers));
          d.touch();
        }
        return true;
      }
      if (free <= 0) return false;
      const run = startRun(d, 'bisection', deps, group);
      part.runId = run.id;
      free--;
    }
  }
  return false;
}

/** A bisection part passed: its PRs are cleared, tested by this run or again in the main queue (policy 4). */
export function bisectionPassed(d: Draft, run: TestRun): void {
  const overtakers = new Set(bisectionOfRun(d, run.id)?.overtakenBy ?? []);
  const members = takePart(d, run);
  if (members.length === 0) return;
  const topo = Topology.of(d);
  const behind = leftOut(d, topo, members);
  const cost = behind.reduce((sum, g) => sum + ciTime(d, g.run), 0);
  const numbers = members.map((m) => m.prNumber);
  if (cost < ciTime(d, run) && stillHolds(d, topo, run, overtakers)) {
    for (const m of members) move(d, m, 'TESTS_PASSED', 'TEST_RUN_PASSED', { patch: { verifiedByTestRun: run.id } });
    for (const g of behind) restartGroup(d, g.run, g.members, 'BISECTION_TEST_RUN_PASSED');
    return;
  }
  if (behind.length > 0) placeBehind(d, numbers, behind.flatMap((g) => g.members));
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_TEST_RUN_PASSED');
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_TEST_RUN_PASSED');
}

/** Whether a passed part's run would verify its PRs where they stand, as any run must to merge them. */
function stillHolds(d: Draft, topo: Topology, run: TestRun, overtakers: ReadonlySet<number>): boolean {
  // Lanes merge past each other in parallel mode, so `checkRun` allows merges it did not include;
  // PRs that overtook the batch were in its lane.
  if ((mergedSince(d, run.baseSha) ?? []).some((p) => overtakers.has(p.number))) return false;
  // A merge in flight of PRs the run did not include leaves it on a stale base.
  const inRun = new Set(run.prs.map((p) => p.number));
  if (d.internal.merge?.prs.some((p) => !inRun.has(p.number))) return false;
  return checkRun(d, topo, run, bisectingSet(d), 'BISECTION_TEST_RUN_PASSED').ok;
}

interface Group {
  run: TestRun;
  members: Entry[];
}

/**
 * Groups whose runs wait on `cleared` without containing it and are to verify a merge: with `cleared`
 * passed ahead of them, they would no longer test what would land. (Failed groups and bisection
 * parts under test only answer whether their content fails; that does not change.)
 */
function leftOut(d: Draft, topo: Topology, cleared: Entry[]): Group[] {
  const numbers = new Set(cleared.map((e) => e.prNumber));
  const out: Group[] = [];
  for (const [runId, members] of activeGroups(d, topo)) {
    const run = d.run(runId);
    if (!run || isEvidence(run, members) || members.some((m) => numbers.has(m.prNumber))) continue;
    const inRun = new Set(run.prs.map((p) => p.number));
    if (dependenciesOf(topo, members).some((e) => numbers.has(e.prNumber) && !inRun.has(e.prNumber))) out.push({ run, members });
  }
  return out;
}

/** CI time a run used: until now while in flight, else until it finished. */
function ciTime(d: Draft, run: TestRun): number {
  return (run.finishedAt ?? d.at) - run.createdAt;
}

/** Moves `numbers` in the queue order to just behind the last of `after`. */
function placeBehind(d: Draft, numbers: number[], after: Entry[]): void {
  const moving = new Set(numbers);
  const rest = d.internal.order.filter((n) => !moving.has(n));
  const last = Math.max(...after.map((e) => rest.indexOf(e.prNumber)));
  d.internal.order = [...rest.slice(0, last + 1), ...numbers, ...rest.slice(last + 1)];
  d.reordered();
}

/** A bisection part failed: one PR is the culprit; more split again. */
export function bisectionFailed(d: Draft, run: TestRun, reason: FailureReason, detail: string | null): void {
  const b = d.internal.bisections.find((x) => x.parts.some((p) => p.runId === run.id));
  if (!b) return;
  if (reusable(reason)) b.failedKeys.push(contentKey(d, run.baseSha, run.prs));
  const part = b.parts.find((p) => p.runId === run.id)!;
  const members = membersOf(d, run);
  if (part.prNumbers.length === 1) {
    takePart(d, run);
    for (const m of members) move(d, m, 'FAILED', reason, detail !== null ? { detail } : {});
    return;
  }
  b.parts.splice(b.parts.indexOf(part), 1, ...halves(part.prNumbers));
  const moved = members.filter((m) => m.state !== 'PENDING').map((m) => move(d, m, 'PENDING', 'BISECTION_REQUIRED').prNumber);
  emitBatchEvent(d, 'pull_request_batch.queued', moved, run, 'BISECTION_REQUIRED');
}

function takePart(d: Draft, run: TestRun): Entry[] {
  for (const b of d.internal.bisections) {
    const i = b.parts.findIndex((p) => p.runId === run.id);
    if (i >= 0) b.parts.splice(i, 1);
  }
  d.internal.bisections = d.internal.bisections.filter((b) => b.parts.length > 0);
  d.touch();
  return membersOf(d, run);
}
