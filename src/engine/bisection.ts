/**
 * Bisection of failed batches (contract §6.3; open question 18 leaves how cleared PRs re-enter the
 * queue to us). The policy, chosen so that one failed batch costs its bisection and nothing more:
 *
 * 1. A batch whose failure is its own (failure.ts) splits into parts tested at once on the bisection
 *    budget (`bisectionConcurrency`, queue type `bisection`): a batch of up to four PRs whose runs
 *    all fit the free slots is tested PR by PR, so the culprit is known after one round instead of
 *    two, for the same runs (`ONE_BY_ONE_UP_TO`); a larger one, or with fewer free slots, in halves. A part is a blame test: it is built on the
 *    target plus only what ahead of it has passed (TESTS_PASSED) plus its base (below), so that its
 *    failure is its own.
 * 2. From that moment the batch is known to fail: every run built on it restarts at once without it
 *    (validity.ts `knownToFail`), as runs built on a failed single PR do, and it steps out of the merge
 *    order: groups behind it that were tested without it merge when they pass (merging.ts) instead of
 *    waiting for the bisection. Its parts' runs keep answering their question meanwhile: only the PRs
 *    they contain matter to them (validity.ts `checkEvidence`).
 * 3. A failed part holds a culprit once what it was tested on top of is cleared: one PR → FAILED with
 *    the run's reason; several split again, on the same base. A part tested on top of a part that
 *    failed would fail too: its run stops and its PRs go back to the queue untested
 *    (PREREQUISITE_MERGE_ITEM_FAILED), placed as in 4.
 * 4. A passing part's run was a real test of its PRs on top of what it included. It counts as their
 *    test (TESTS_PASSED, `verifiedByTestRun` = that run) when it still holds at their position — what it
 *    included ahead has merged or is still ahead, nothing else that is not known to fail stands ahead,
 *    nothing merged past the batch since it started — and keeping it throws away less CI time than
 *    testing them again: the groups behind them whose runs left them out (they restart on top of them,
 *    BISECTION_TEST_RUN_PASSED) used less CI time together than the part's own run. Otherwise the PRs go
 *    back to PENDING (BISECTION_TEST_RUN_PASSED) just behind those groups, whose runs stay valid, and
 *    ahead of every PR that has not started, and are tested again in the main queue. Either way,
 *    nothing restarts twice for one cleared part.
 *
 * With a full queue the groups behind outweigh a part, so cleared PRs are retested behind them; with
 * few groups behind (a quiet queue, a batch at the back) the part's run is their test.
 *
 * `optimizationMode = bisection_skip_redundant_tests` (Trunk's name): the last part of a split is
 * tested on top of the others, which makes it the content that failed: it is known to fail without a
 * run, and one more part fits the free slots. When the others pass on the same base, it holds the
 * culprit: one PR → FAILED with TEST_RUN_FAILED_BY_OPTIMIZATION; several split again on top of them.
 * When one of the others fails instead, that says nothing about it: its PRs go back to the queue
 * untested. A batch of four costs three runs, in one round. More generally a part whose run would test
 * exactly the content of a run of this bisection that already failed (same anchor and PR heads) is not
 * run again (only test failures are reused, not timeouts or start errors). Passes are never reused.
 * The inference assumes a failure belongs to the PRs that cause it; a flaky failure of the batch
 * blames its last PR, which is why the setting is off by default.
 */
import { bisectingSet, bisectionOfRun } from './bisection-state.js';
import type { Draft } from './draft.js';
import type { Bisection, BisectionPart } from './internal.js';
import { isAdmitted } from './ordering.js';
import { abandonRun, contentKey, headOf, isInFlight, mergedSince, startRun } from './runs.js';
import { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import { activeGroups, checkRun, dependenciesOf, isEvidence, isSkippable, restartGroup } from './validity.js';
import type { Entry, FailureReason, QueuedReason, TestRun } from './types.js';

/** Only a failed test says something about the tree; a timeout or a start error does not. */
const reusable = (reason: FailureReason | null): boolean => reason === 'TEST_RUN_REQUIRED_STATUS_FAILED';

const skipsRedundantTests = (d: Draft): boolean => d.config.optimizationMode === 'bisection_skip_redundant_tests';

/**
 * Up to this many PRs, a split tests them one by one when the slots are free: finding one culprit
 * costs as many runs as halving (four against 2 + 2) in one round instead of two. Larger parts are
 * halved: one by one would cost more runs (eight: 8 against 6), and in the simulator splitting
 * batches of eight in four parts made fewer merges per hour than halving them.
 */
const ONE_BY_ONE_UP_TO = 4;

/**
 * Splits `prNumbers` (tested on top of `base`) into consecutive parts of even size: one per PR when
 * there are at most `ONE_BY_ONE_UP_TO` and the free bisection slots can test them all at once, else
 * two. Each part is tested on its own on top of `base`, except that with
 * `bisection_skip_redundant_tests` the last is tested on top of the others: that is the content that
 * failed, so it is known to fail without a run, and needs no slot.
 */
function split(d: Draft, prNumbers: number[], base: number[]): BisectionPart[] {
  const busy = d.allRuns().filter((r) => r.queueType === 'bisection' && isInFlight(r)).length;
  const free = d.config.bisectionConcurrency - busy + (skipsRedundantTests(d) ? 1 : 0);
  const k = prNumbers.length <= ONE_BY_ONE_UP_TO && prNumbers.length <= free ? prNumbers.length : 2;
  const parts: BisectionPart[] = [];
  let from = 0;
  for (let i = 1; i <= k; i++) {
    const to = Math.round((i * prNumbers.length) / k);
    const onOthers = i === k && skipsRedundantTests(d);
    const partBase = onOthers ? [...base, ...prNumbers.slice(0, from)] : base;
    parts.push({ prNumbers: prNumbers.slice(from, to), base: partBase, runId: null, failure: null });
    from = to;
  }
  return parts;
}

export function startBisection(d: Draft, run: TestRun, members: Entry[]): void {
  const numbers = members.map((m) => m.prNumber);
  d.internal.bisections.push({
    id: `bisect-${run.id}`,
    members: numbers,
    failedKeys: reusable(run.failureReason) ? [contentKey(d, run.baseSha, run.prs)] : [],
    parts: split(d, numbers, []),
    cleared: [],
    overtakenBy: [],
  });
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_REQUIRED');
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_REQUIRED');
}

/** Settles what is known of every bisection, then starts bisection runs while the budget allows. */
export function scheduleBisections(d: Draft, topo: Topology): boolean {
  const target = d.targetSha;
  if (d.state === 'PAUSED' || target === null) return false;
  for (const b of d.internal.bisections) if (settleParts(d, b)) return true;
  let free = d.config.bisectionConcurrency - d.allRuns().filter((r) => r.queueType === 'bisection' && isInFlight(r)).length;
  for (const b of d.internal.bisections) {
    for (const part of b.parts) {
      if (part.runId !== null || part.failure !== null) continue;
      const group = part.prNumbers.map((n) => d.entry(n)!);
      const deps = partBase(d, topo, b, part, group);
      const key = contentKey(d, target, [...deps.map(headOf), ...group.map(headOf)]);
      if (skipsRedundantTests(d) && b.failedKeys.includes(key)) {
        partFailed(d, b, part, 'TEST_RUN_FAILED_BY_OPTIMIZATION', 'the same change already failed on the same base in this bisection');
        return true;
      }
      if (free <= 0) return false;
      part.runId = startRun(d, 'bisection', deps, group).id;
      free--;
    }
  }
  return false;
}

/**
 * What a part is tested on top of: what ahead of it has passed, then the PRs of its base still
 * queued (under bisection, or cleared and waiting to merge), except those that failed elsewhere since
 * and, in parallel mode, those no longer in its lane.
 */
function partBase(d: Draft, topo: Topology, b: Bisection, part: BisectionPart, group: Entry[]): Entry[] {
  const ahead = dependenciesOf(topo, group);
  const deps = ahead.filter((e) => e.state === 'TESTS_PASSED');
  const seen = new Set(deps.map((e) => e.prNumber));
  // Parallel mode: only what the group still waits on in its lane (impacted targets may have changed).
  const inLane = d.config.mode === 'parallel' ? new Set(ahead.map((e) => e.prNumber)) : null;
  const bisecting = bisectingSet(d);
  const ownBatch = new Set(b.parts.flatMap((p) => p.prNumbers));
  for (const n of part.base) {
    const e = d.entry(n);
    if (!e || !isAdmitted(e) || seen.has(n) || (inLane && !inLane.has(n))) continue;
    if (!ownBatch.has(n) && isSkippable(e, bisecting)) continue;
    deps.push(e);
  }
  return deps;
}

/**
 * Settles the failed parts of a bisection whose base is no longer under test (policy 3): one whose
 * base was cleared holds a culprit; one whose base left otherwise (cancelled, failed, untested) says
 * nothing about its own PRs, which go back to the main queue. Returns whether anything changed.
 */
function settleParts(d: Draft, b: Bisection): boolean {
  const known = b.parts.filter((p) => p.failure !== null && !p.base.some((n) => under(b, n, p)));
  if (known.length === 0) return false;
  const blamed = known.find((p) => p.base.every((n) => b.cleared.includes(n)));
  const orphans = known.filter((p) => p !== blamed && !p.base.every((n) => b.cleared.includes(n)));
  if (orphans.length > 0) {
    b.parts = b.parts.filter((p) => !orphans.includes(p));
    const untested = orphans.flatMap((p) => p.prNumbers).map((n) => d.entry(n)!);
    requeue(d, untested, leftOut(d, Topology.of(d), untested), 'PREREQUISITE_MERGE_ITEM_FAILED', undefined);
  }
  if (blamed) blame(d, b, blamed);
  dropSettled(d);
  return true;
}

/** Whether PR `n` is still under test in bisection `b`, in a part other than `part`. */
const under = (b: Bisection, n: number, part: BisectionPart): boolean =>
  b.parts.some((p) => p !== part && p.prNumbers.includes(n));

/** A failed part whose base is settled holds a culprit: one PR → FAILED; more split again (policy 3). */
function blame(d: Draft, b: Bisection, part: BisectionPart): void {
  const { reason, detail } = part.failure!;
  const members = part.prNumbers.map((n) => d.entry(n)!);
  const at = b.parts.indexOf(part);
  if (members.length === 1) {
    b.parts.splice(at, 1);
    move(d, members[0], 'FAILED', reason, detail !== null ? { detail } : {});
    return;
  }
  b.parts.splice(at, 1, ...split(d, part.prNumbers, part.base));
  const moved = members.filter((m) => m.state !== 'PENDING').map((m) => move(d, m, 'PENDING', 'BISECTION_REQUIRED').prNumber);
  const run = d.run(part.runId);
  if (run) emitBatchEvent(d, 'pull_request_batch.queued', moved, run, 'BISECTION_REQUIRED');
}

/**
 * A bisection part passed: its run cleared every part whose PRs it contained (runs of the others
 * stop), and failed parts tested on top of them may now be blamed (policies 3 and 4).
 */
export function bisectionPassed(d: Draft, run: TestRun): void {
  const b = bisectionOfRun(d, run.id);
  if (!b) return;
  const inRun = new Set(run.prs.map((p) => p.number));
  const cleared = b.parts.filter((p) => p.prNumbers.every((n) => inRun.has(n)));
  b.parts = b.parts.filter((p) => !cleared.includes(p));
  for (const p of cleared) {
    const own = d.run(p.runId);
    if (own && own.id !== run.id) abandonRun(d, own);
  }
  clear(d, b, cleared, run);
  settleParts(d, b);
  dropSettled(d);
}

/** Cleared parts leave the bisection: tested by the run that passed them, or again in the main queue. */
function clear(d: Draft, b: Bisection, cleared: BisectionPart[], run: TestRun): void {
  const members = cleared.flatMap((p) => p.prNumbers).map((n) => d.entry(n)!);
  b.cleared.push(...members.map((m) => m.prNumber));
  const topo = Topology.of(d);
  const behind = leftOut(d, topo, members);
  const cost = behind.reduce((sum, g) => sum + ciTime(d, g.run), 0);
  if (cost < ciTime(d, run) && stillHolds(d, topo, run, new Set(b.overtakenBy))) {
    for (const m of members) move(d, m, 'TESTS_PASSED', 'TEST_RUN_PASSED', { patch: { verifiedByTestRun: run.id } });
    for (const g of behind) restartGroup(d, g.run, g.members, 'BISECTION_TEST_RUN_PASSED');
    return;
  }
  requeue(d, members, behind, 'BISECTION_TEST_RUN_PASSED', run);
}

/** A bisection part failed: it holds a culprit once its base is cleared (policy 3). */
export function bisectionFailed(d: Draft, run: TestRun, reason: FailureReason, detail: string | null): void {
  const b = bisectionOfRun(d, run.id);
  if (!b) return;
  if (reusable(reason)) b.failedKeys.push(contentKey(d, run.baseSha, run.prs));
  partFailed(d, b, b.parts.find((p) => p.runId === run.id)!, reason, detail);
}

/**
 * `part` is known to fail. Parts tested on top of it would fail too: they leave the bisection
 * untested, back to the main queue. It is blamed at once if nothing it was tested on top of is still
 * under test; else its PRs wait out of testing.
 */
function partFailed(d: Draft, b: Bisection, part: BisectionPart, reason: FailureReason, detail: string | null): void {
  part.failure = { reason, detail };
  const failing = new Set(part.prNumbers);
  const onIt = b.parts.filter((p) => p.base.some((n) => failing.has(n)));
  if (onIt.length > 0) {
    b.parts = b.parts.filter((p) => !onIt.includes(p));
    for (const p of onIt) {
      const r = d.run(p.runId);
      if (r) abandonRun(d, r);
    }
    const untested = onIt.flatMap((p) => p.prNumbers).map((n) => d.entry(n)!);
    requeue(d, untested, leftOut(d, Topology.of(d), untested), 'PREREQUISITE_MERGE_ITEM_FAILED', d.run(part.runId));
  }
  if (settleParts(d, b) && !b.parts.includes(part)) return;
  const run = d.run(part.runId);
  const moved = part.prNumbers.map((n) => d.entry(n)!).filter((m) => m.state !== 'PENDING')
    .map((m) => move(d, m, 'PENDING', 'BISECTION_REQUIRED').prNumber);
  if (run) emitBatchEvent(d, 'pull_request_batch.queued', moved, run, 'BISECTION_REQUIRED');
  d.touch();
}

/**
 * PRs leaving a bisection for the main queue: just behind the groups whose runs were started without
 * them (those runs stay valid), ahead of everything that has not started.
 */
function requeue(d: Draft, members: Entry[], behind: Group[], reason: QueuedReason, run: TestRun | undefined): void {
  const numbers = members.map((m) => m.prNumber);
  if (behind.length > 0) placeBehind(d, numbers, behind.flatMap((g) => g.members));
  for (const m of members) if (m.state !== 'PENDING' || m.lastReason !== reason) move(d, m, 'PENDING', reason);
  if (run) emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, reason);
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

/** Bisections with nothing left to test are done. */
function dropSettled(d: Draft): void {
  d.internal.bisections = d.internal.bisections.filter((b) => b.parts.length > 0);
  d.touch();
}
