/**
 * Bisection of failed batches (contract §6.3). A batch whose failure is its own (failure.ts) splits
 * into halves; each part is tested on the bisection budget (`bisectionConcurrency`, queue type
 * `bisection`) on top of what the batch waits on, plus any PRs of the batch already cleared (they
 * stand ahead of it again). A passing part's PRs are cleared: back to PENDING in the main queue,
 * same position (BISECTION_TEST_RUN_PASSED), to be tested and merged normally. A failing part of
 * one PR found a culprit (FAILED with the run's reason); a larger one splits again.
 *
 * `optimizationMode = bisection_skip_redundant_tests`: a part whose run would test exactly the content
 * of a run of this bisection that already failed (same anchor and PR heads, e.g. the second half on
 * top of a cleared first half = the whole batch) is not run again (only test failures are reused,
 * not timeouts or start errors): one PR → FAILED with
 * TEST_RUN_FAILED_BY_OPTIMIZATION, several → split at once. Passes are never reused.
 */
import { bisectingSet } from './bisection-state.js';
import type { Draft } from './draft.js';
import type { BisectionPart } from './internal.js';
import { contentKey, headOf, isInFlight, membersOf, startRun } from './runs.js';
import type { Topology } from './topology.js';
import { emitBatchEvent, move } from './transitions.js';
import { dependenciesOf, isSkippable } from './validity.js';
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
  });
  for (const m of members) move(d, m, 'PENDING', 'BISECTION_REQUIRED');
  emitBatchEvent(d, 'pull_request_batch.queued', numbers, run, 'BISECTION_REQUIRED');
}

/** Starts bisection runs while the bisection budget allows. Returns whether anything changed. */
export function scheduleBisections(d: Draft, topo: Topology): boolean {
  const target = d.targetSha;
  if (d.state === 'PAUSED' || target === null) return false;
  let free = d.config.bisectionConcurrency - d.allRuns().filter((r) => r.queueType === 'bisection' && isInFlight(r)).length;
  const bisecting = bisectingSet(d);
  for (const b of d.internal.bisections) {
    for (let i = 0; i < b.parts.length; i++) {
      const part = b.parts[i];
      if (part.runId !== null) continue;
      const group = part.prNumbers.map((n) => d.entry(n)!);
      const deps = dependenciesOf(topo, group).filter((e) => !isSkippable(e, bisecting));
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

/** A bisection part passed: its PRs are cleared and go back to the main queue. */
export function bisectionPassed(d: Draft, run: TestRun): void {
  const members = takePart(d, run);
  const moved = members.map((m) => move(d, m, 'PENDING', 'BISECTION_TEST_RUN_PASSED').prNumber);
  emitBatchEvent(d, 'pull_request_batch.queued', moved, run, 'BISECTION_TEST_RUN_PASSED');
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
