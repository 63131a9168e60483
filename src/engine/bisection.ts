/**
 * Bisection of failed batches (contract §6.3; open question 18 leaves how cleared PRs re-enter the
 * queue to us). The policy, chosen so that one failed batch costs its bisection and nothing more:
 *
 * 1. A batch whose failure is its own (failure.ts) splits in two — halves, or where the evidence on its
 *    PRs says (blame.ts) — tested on the bisection budget (`bisectionConcurrency`, queue type
 *    `bisection`). A part is a blame test: it is built on the target plus only what ahead of it has
 *    passed (TESTS_PASSED), so that its failure is its own.
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
 * `optimizationMode = bisection_skip_redundant_tests` reuses the failures of this bisection (only test
 * failures, not timeouts or start errors; passes are never reused):
 * - A part whose run would test exactly the content of a run of this bisection that already failed
 *   (same anchor and PR heads, e.g. the second half on top of a cleared first half = the whole batch)
 *   is not run: one PR → FAILED with TEST_RUN_FAILED_BY_OPTIMIZATION, several → split at once.
 * - So that this can apply, a second half of one PR waits for the first half of its split instead of
 *   being tested beside it. If the first half passes, the PR is judged on top of that half's run:
 *   that content is the failed set they were split from, so the PR fails without a run (else it is
 *   tested). If the first half fails, that explains the failure: the PR leaves the bisection untested
 *   and goes back to the main queue (placed as in policy 4) to be tested there, as a cleared PR in a
 *   busy queue is. One culprit in a failing pair so costs one run instead of two. The price: in a
 *   quiet queue, where a cleared PR's own run would have counted as its test, the PR waits for a
 *   main-queue run instead, and a second culprit in the pair is only found by the main queue.
 */
import { bisectingSet, bisectionOfRun } from './bisection-state.js';
import { failedAlonePatch, splitByEvidence } from './blame.js';
import type { Draft } from './draft.js';
import { mayTest } from './freeze.js';
import type { Bisection, BisectionPart } from './working-state.js';
import { contentKey, headOf, membersOf, mergedSince, startRun, takesBisectionSlot } from './runs.js';
import { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import { activeGroups, checkRun, dependenciesOf, isEvidence, restartGroup } from './validity.js';
import type { Entry, FailureReason, PassedReason, TestRun } from './types.js';

/** Only a failed test says something about the tree; a timeout or a start error does not. */
const reusable = (reason: FailureReason | null): boolean => reason === 'TEST_RUN_REQUIRED_STATUS_FAILED';

/**
 * The two parts of a set of PRs known to fail: halves, or as the evidence on them says (blame.ts), with
 * why in words. With bisection_skip_redundant_tests, a second part of one PR waits for the first.
 */
function split(d: Draft, prNumbers: number[]): { parts: BisectionPart[]; why: string | null } {
  const { parts, why } = splitByEvidence(prNumbers.map((n) => d.entry(n)!));
  const [first, second] = parts;
  const waits = skipsRedundantTests(d) && second.length === 1;
  return {
    parts: [
      { prNumbers: first, runId: null },
      { prNumbers: second, runId: null, ...(waits ? { after: first } : {}) },
    ],
    why,
  };
}

const skipsRedundantTests = (d: Draft): boolean => d.config.optimizationMode === 'bisection_skip_redundant_tests';

/** Whether a part still waits for the part it follows: one holding any of those PRs is unsettled. */
function isWaiting(b: Bisection, part: BisectionPart): boolean {
  const after = part.after;
  return after !== undefined && b.parts.some((p) => p !== part && p.prNumbers.some((n) => after.includes(n)));
}

/** The parts that wait for the part of `prNumbers` (bisection_skip_redundant_tests). */
function followersOf(b: Bisection, prNumbers: readonly number[]): BisectionPart[] {
  return b.parts.filter((p) => p.after?.some((n) => prNumbers.includes(n)));
}

const SAME_FAILURE = 'the same change already failed on the same base in this bisection';

export function startBisection(d: Draft, run: TestRun, members: Entry[]): void {
  const numbers = members.map((m) => m.prNumber);
  const { parts, why } = split(d, numbers);
  d.internal.bisections.push({
    id: `bisect-${run.id}`,
    members: numbers,
    failedKeys: reusable(run.failureReason) ? [contentKey(d, run.baseSha, run.prs)] : [],
    parts,
    overtakenBy: [],
  });
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_REQUIRED', why !== null ? { detail: why } : {});
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_REQUIRED');
}

/** Starts bisection runs while the bisection budget allows. Returns whether anything changed. */
export function scheduleBisections(d: Draft, topo: Topology): boolean {
  const target = d.targetSha;
  if (d.state === 'PAUSED' || target === null) return false;
  let free = d.config.bisectionConcurrency - d.allRuns().filter((r) => takesBisectionSlot(d, r)).length;
  for (const b of d.internal.bisections) {
    for (let i = 0; i < b.parts.length; i++) {
      const part = b.parts[i];
      if (part.runId !== null || isWaiting(b, part)) continue;
      const group = part.prNumbers.map((n) => d.entry(n)!);
      if (!group.every((e) => mayTest(d, e))) continue; // frozen with stopTesting (freeze.ts)
      const deps = dependenciesOf(topo, group).filter((e) => e.state === 'TESTS_PASSED');
      const key = contentKey(d, target, [...deps.map(headOf), ...group.map(headOf)]);
      if (skipsRedundantTests(d) && b.failedKeys.includes(key)) {
        if (group.length === 1) {
          b.parts.splice(i, 1);
          failAlone(d, group[0], 'TEST_RUN_FAILED_BY_OPTIMIZATION', SAME_FAILURE);
        } else {
          b.parts.splice(i, 1, ...split(d, part.prNumbers).parts);
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
  const b = bisectionOfRun(d, run.id);
  const overtakers = new Set(b?.overtakenBy ?? []);
  const members = takePart(d, run);
  if (b) releaseFollowers(d, b, run, members);
  if (members.length === 0) return;
  readmit(d, run, members, overtakers, 'TEST_RUN_PASSED');
}

/**
 * PRs out of the merge order whose run passed are cleared (policy 4): tested by this run, or again in
 * the main queue behind the groups that left them out. Also for a group a failed run stepped out of
 * the chain whose retry passed (ci-retries.ts; `passed` = TEST_RUN_PASSED_AFTER_RETRY).
 */
export function readmit(
  d: Draft,
  run: TestRun,
  members: Entry[],
  overtakers: ReadonlySet<number>,
  passed: PassedReason,
): void {
  const topo = Topology.of(d);
  const behind = leftOut(d, topo, members);
  const cost = behind.reduce((sum, g) => sum + ciTime(d, g.run), 0);
  const numbers = members.map((m) => m.prNumber);
  if (cost < ciTime(d, run) && stillHolds(d, topo, run, overtakers)) {
    for (const m of members) move(d, m, 'TESTS_PASSED', passed, { patch: { verifiedByTestRun: run.id } });
    for (const g of behind) restartGroup(d, g.run, g.members, 'BISECTION_TEST_RUN_PASSED');
    return;
  }
  backToMainQueue(d, members, behind);
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_TEST_RUN_PASSED');
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_TEST_RUN_PASSED');
}

/**
 * The first half of a split passed: the PR waiting for it fails without a run when it on top of that
 * half's run is content that already failed in this bisection (the set they were split from), and
 * is tested otherwise (e.g. the setting was turned off meanwhile).
 */
function releaseFollowers(d: Draft, b: Bisection, run: TestRun, passed: Entry[]): void {
  for (const part of followersOf(
    b,
    passed.map((m) => m.prNumber),
  )) {
    delete part.after;
    if (!skipsRedundantTests(d)) continue;
    const e = d.entry(part.prNumbers[0])!; // a waiting part holds one PR (halves)
    if (b.failedKeys.includes(contentKey(d, run.baseSha, [...run.prs, headOf(e)]))) {
      failAlone(d, e, 'TEST_RUN_FAILED_BY_OPTIMIZATION', SAME_FAILURE);
    }
  }
  dropSettled(d);
}

/**
 * The part that `followers` waited for failed, which explains the failure they were split from: they
 * leave the bisection untested and are tested in the main queue (bisection_skip_redundant_tests).
 */
function returnFollowers(d: Draft, b: Bisection, followers: BisectionPart[]): void {
  if (followers.length === 0) return;
  b.parts = b.parts.filter((p) => !followers.includes(p));
  dropSettled(d);
  const members = followers.flatMap((p) => p.prNumbers).map((n) => d.entry(n)!);
  backToMainQueue(d, members, leftOut(d, Topology.of(d), members));
}

/**
 * Cleared PRs re-enter the main queue just behind the groups whose runs wait on them without
 * containing them, so that those runs stay valid (policy 4).
 */
function backToMainQueue(d: Draft, members: Entry[], behind: Group[]): void {
  if (behind.length > 0)
    placeBehind(
      d,
      members.map((m) => m.prNumber),
      behind.flatMap((g) => g.members),
    );
  d.touch();
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
    if (dependenciesOf(topo, members).some((e) => numbers.has(e.prNumber) && !inRun.has(e.prNumber)))
      out.push({ run, members });
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
  const b = bisectionOfRun(d, run.id);
  if (!b) return;
  if (reusable(reason)) b.failedKeys.push(contentKey(d, run.baseSha, run.prs));
  const part = b.parts.find((p) => p.runId === run.id)!;
  const members = membersOf(d, run);
  const followers = followersOf(b, part.prNumbers); // before the split below adds parts that follow
  if (part.prNumbers.length === 1) {
    takePart(d, run);
    for (const m of members) failAlone(d, m, reason, detail);
  } else {
    const { parts, why } = split(d, part.prNumbers);
    b.parts.splice(b.parts.indexOf(part), 1, ...parts);
    const moved = members
      .filter((m) => m.state !== 'PENDING')
      .map((m) => move(d, m, 'PENDING', 'BISECTION_REQUIRED', why !== null ? { detail: why } : {}).prNumber);
    emitBatchEvent(d, 'pull_request_batch.queued', moved, run, 'BISECTION_REQUIRED');
  }
  returnFollowers(d, b, followers);
}

/** One PR failed on its own: FAILED, and the evidence that its head fails (blame.ts). */
export function failAlone(d: Draft, e: Entry, reason: FailureReason, detail: string | null): void {
  // A failed test, or the same content's failed test reused: what the tree does, not a timeout.
  const patch = reusable(reason) || reason === 'TEST_RUN_FAILED_BY_OPTIMIZATION' ? failedAlonePatch(e) : {};
  move(d, e, 'FAILED', reason, { patch, ...(detail !== null ? { detail } : {}) });
}

function takePart(d: Draft, run: TestRun): Entry[] {
  for (const b of d.internal.bisections) {
    const i = b.parts.findIndex((p) => p.runId === run.id);
    if (i >= 0) b.parts.splice(i, 1);
  }
  dropSettled(d);
  return membersOf(d, run);
}

/** Forgets bisections with nothing left to test. */
function dropSettled(d: Draft): void {
  d.internal.bisections = d.internal.bisections.filter((b) => b.parts.length > 0);
  d.touch();
}
