/**
 * Test runs: creating them (predictive base), abandoning them, and the facts other parts ask about
 * them. A run's `prs` are the heads it tested in order: its dependencies, then its own group.
 */
import type { Draft } from './draft.js';
import { testBranchName } from './test-branch.js';
import { emitBatchSubmitted } from './transitions.js';
import type { Entry, QueueType, RunPr, TestRun } from './types.js';

export const isInFlight = (run: TestRun | undefined): boolean =>
  run !== undefined && (run.status === 'creating' || run.status === 'in_progress');

/** Anti-flake (contract §6.6): failing groups ahead stay in the base of new runs, so a pass can vouch for them. */
export function keepsFailingInBase(d: Draft): boolean {
  return d.config.canOptimisticallyMerge && d.config.pendingFailureDepth > 0;
}

/**
 * Whether a run takes one of the main runs allowed at once (`concurrency`): a main run in flight,
 * except while it is retried after a failure (`ciRetries`) outside anti-flake: such a retry is a blame
 * test, on the bisection budget, while the runs behind go on (ci-retries.ts). Under anti-flake the
 * runs behind keep the group in their base until its retries are spent; its retry keeps its slot.
 */
export const takesMainSlot = (d: Draft, run: TestRun): boolean =>
  run.queueType === 'main' && isInFlight(run) && ((run.failedRetries ?? 0) === 0 || keepsFailingInBase(d));

/** Whether a run takes one of the bisection runs allowed at once (`bisectionConcurrency`): see takesMainSlot. */
export const takesBisectionSlot = (d: Draft, run: TestRun): boolean => isInFlight(run) && !takesMainSlot(d, run);

export const headOf = (e: Entry): RunPr => ({ number: e.prNumber, headSha: e.headSha });

export const samePr = (a: RunPr, b: RunPr): boolean => a.number === b.number && a.headSha === b.headSha;

/**
 * The run an entry's fate currently hangs on: the run that verified it once TESTS_PASSED (its own,
 * or a successor's under optimistic merging), else its own run. Entries with the same key move
 * together: they are one group.
 */
export function groupKey(e: Entry): string {
  if (e.state === 'TESTS_PASSED') return e.verifiedByTestRun ?? e.runId ?? `pr:${e.prNumber}`;
  if (e.state === 'TESTING' || e.state === 'PENDING_FAILURE') return e.runId ?? `pr:${e.prNumber}`;
  return `pr:${e.prNumber}`;
}

/** A PENDING entry whose new run is being built (between createTestBranch and testBranchCreated). */
export function isStarting(d: Draft, e: Entry): boolean {
  if (e.state !== 'PENDING') return false;
  const run = d.run(e.runId);
  return run !== undefined && run.status === 'creating';
}

/**
 * PR heads our own merges put on the target since `baseSha`, or null when `baseSha` is not a sha of
 * the target's history as this engine knows it (the target moved from outside since).
 */
export function mergedSince(d: Draft, baseSha: string): RunPr[] | null {
  const h = d.internal.targetHistory;
  const i = h.findIndex((s) => s.sha === baseSha);
  if (i < 0) return null;
  return h.slice(i + 1).flatMap((s) => s.prs);
}

/**
 * The content a run tested, independent of which of our own merges happened since: the anchor sha
 * of the target history plus every PR head on top of it (our merges up to `baseSha`, then `prs`).
 * Equal keys = the same tree was tested.
 */
export function contentKey(d: Draft, baseSha: string, prs: RunPr[]): string {
  const h = d.internal.targetHistory;
  const at = h.findIndex((s) => s.sha === baseSha);
  const below = at < 0 ? [] : h.slice(1, at + 1).flatMap((s) => s.prs);
  return `${at < 0 ? baseSha : h[0].sha}|${[...below, ...prs].map((p) => `${p.number}@${p.headSha}`).join(',')}`;
}

/**
 * Creates a run for `group` on the current target with `deps` merged in first, and asks the forge to
 * build its test branch. The entries stay PENDING until the branch exists (then TESTING).
 */
export function startRun(d: Draft, queueType: QueueType, deps: Entry[], group: Entry[]): TestRun {
  const id = d.ctx.newId();
  const prNumbers = group.map((e) => e.prNumber);
  const run: TestRun = {
    id,
    queueType,
    prNumbers,
    dependentPrs: deps.map((e) => e.prNumber),
    baseSha: d.targetSha as string,
    prs: [...deps.map(headOf), ...group.map(headOf)],
    testBranch: testBranchName(d.base.testBranchPrefix, prNumbers, id),
    testSha: null,
    status: 'creating',
    createdAt: d.at,
    finishedAt: null,
    failureReason: null,
    failureDetail: null,
  };
  d.putRun(run);
  d.emit({
    kind: 'createTestBranch',
    key: `${id}:createTestBranch`,
    runId: id,
    branch: run.testBranch,
    baseSha: run.baseSha,
    prs: run.prs,
  });
  const previousRunIds = group.map((e) => d.entry(e.prNumber)!.runId);
  for (const e of group) d.putEntry({ ...d.entry(e.prNumber)!, runId: id });
  emitBatchSubmitted(d, run, previousRunIds);
  return run;
}

/** Stops a run that is still building or testing: CI is cancelled; the branch goes in the clean-up. */
export function abandonRun(d: Draft, run: TestRun): TestRun {
  if (!isInFlight(run)) return run;
  const next: TestRun = { ...run, status: 'cancelled', finishedAt: d.at };
  d.putRun(next);
  d.emit({ kind: 'cancelCi', key: `${run.id}:cancelCi`, runId: run.id });
  return next;
}

/** Non-terminal entries whose own run is `runId`, in the run's order. */
export function membersOf(d: Draft, run: TestRun): Entry[] {
  const out: Entry[] = [];
  for (const n of run.prNumbers) {
    const e = d.entry(n);
    if (e && e.runId === run.id && e.state !== 'MERGED' && e.state !== 'FAILED' && e.state !== 'CANCELLED') out.push(e);
  }
  return out;
}
