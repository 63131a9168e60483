/**
 * The one place an entry changes state (contract §5.2). Every change appends a timeline item, sets
 * `lastReason` and `stateChangedAt`, and emits the webhook-shaped event of the new state:
 *
 *   to NOT_READY       pull_request.submitted       to PENDING_FAILURE  pull_request.pending_failure
 *   to PENDING         pull_request.queued          to FAILED           pull_request.failed
 *   to TESTING         pull_request.testing         to CANCELLED        pull_request.canceled
 *   to TESTS_PASSED    (no event)                   to MERGED           pull_request.merged
 *
 * Batch events (`pull_request_batch.*`) are emitted by the callers that move a whole group at once,
 * except two emitted here: `pull_request_batch.canceled` when a PR of a batch that is building,
 * testing, pending failure or passed is cancelled (`pr_numbers` = that PR, `pr_numbers_in_batch` = the
 * batch; the others go back to the queue with `pull_request_batch.queued`), and
 * `pull_request_batch.submitted` when a new batch is formed (emitBatchSubmitted, from runs.ts).
 * A move to FAILED is also a measurement for adaptive mode (adaptive.ts).
 */
import { recordFailure } from './adaptive.js';
import { recordOutcome } from './risk.js';
import type { Draft } from './draft.js';
import {
  isTerminal,
  type Entry,
  type PrState,
  type QueueEventPayload,
  type TestRun,
  type TransitionReason,
} from './types.js';

const EVENT_OF: Partial<Record<PrState, QueueEventPayload['type']>> = {
  NOT_READY: 'pull_request.submitted',
  PENDING: 'pull_request.queued',
  TESTING: 'pull_request.testing',
  PENDING_FAILURE: 'pull_request.pending_failure',
  FAILED: 'pull_request.failed',
  CANCELLED: 'pull_request.canceled',
  MERGED: 'pull_request.merged',
};

export interface MoveOptions {
  detail?: string;
  /** Other fields to change together with the state (runId, admittedAt, …). */
  patch?: Partial<Entry>;
  /** The state recorded as `from` on the timeline; null for a brand-new entry. */
  from?: PrState | null;
}

export function move(d: Draft, entry: Entry, to: PrState, reason: TransitionReason, opts: MoveOptions = {}): Entry {
  const batch = to === 'CANCELLED' ? batchOf(d, entry) : undefined;
  const patched: Entry = { ...entry, ...opts.patch, ...conflictPatch(to, reason) };
  const item = {
    at: d.at,
    from: opts.from === undefined ? entry.state : opts.from,
    to,
    reason,
    ...(patched.runId !== null && to !== 'NOT_READY' ? { runId: patched.runId } : {}),
    ...(opts.detail !== undefined ? { detail: opts.detail } : {}),
  };
  const next: Entry = {
    ...patched,
    state: to,
    stateChangedAt: d.at,
    lastReason: reason,
    timeline: [...entry.timeline, item],
  };
  d.putEntry(next);
  if (isTerminal(to)) forget(d, next.prNumber);
  if (to === 'FAILED') recordFailure(d);
  if (to === 'FAILED' || to === 'MERGED') recordOutcome(d, next.author, to === 'FAILED');
  const type = EVENT_OF[to];
  if (type) {
    const run = to === 'NOT_READY' ? undefined : d.run(next.runId);
    d.emit({
      kind: 'emitEvent',
      key: `${next.id}:${next.trip}:${next.timeline.length}`,
      event: eventPayload(d, type, [next.prNumber], run, reason),
    });
  }
  if (batch) emitBatchEvent(d, 'pull_request_batch.canceled', [next.prNumber], batch, reason);
  return next;
}

/**
 * A PR that failed because its changes could not be merged onto what comes before it no longer
 * claims the mergeability it had when admitted: it is not mergeable, because of a conflict.
 */
function conflictPatch(to: PrState, reason: TransitionReason): Partial<Entry> {
  return to === 'FAILED' && reason === 'START_TEST_RUN_MERGE_CONFLICT'
    ? { mergeability: 'not_mergeable', unmergeable: { cause: 'conflict' } }
    : {};
}

/** The batch run an entry currently belongs to: being built, tested, pending failure or passed. */
function batchOf(d: Draft, e: Entry): TestRun | undefined {
  const run = d.run(e.runId);
  if (!run || run.prNumbers.length < 2 || !run.prNumbers.includes(e.prNumber)) return undefined;
  const current =
    e.state === 'TESTING' ||
    e.state === 'PENDING_FAILURE' ||
    e.state === 'TESTS_PASSED' ||
    (e.state === 'PENDING' && run.status === 'creating');
  return current ? run : undefined;
}

/**
 * `pull_request_batch.submitted` for a batch run just created in the main queue, unless its PRs were
 * all in one batch before (a batch tested again after a restart is the same batch). The reason is
 * the first PR's submission reason.
 */
export function emitBatchSubmitted(d: Draft, run: TestRun, previousRunIds: (string | null)[]): void {
  if (run.queueType !== 'main' || run.prNumbers.length < 2) return;
  const [first] = previousRunIds;
  if (first !== null && first !== undefined && previousRunIds.every((id) => id === first)) return;
  const seed = d.entry(run.prNumbers[0]);
  const submitted =
    [...(seed?.timeline ?? [])].reverse().find((t) => t.to === 'NOT_READY')?.reason ?? seed?.lastReason ?? null;
  emitBatchEvent(d, 'pull_request_batch.submitted', run.prNumbers, run, submitted);
}

/** Emits one `pull_request_batch.*` event for PRs of a batch run that moved together. */
export function emitBatchEvent(
  d: Draft,
  type: QueueEventPayload['type'],
  prNumbers: number[],
  run: TestRun,
  reason: TransitionReason | null,
): void {
  if (run.prNumbers.length < 2 || prNumbers.length === 0) return;
  d.emit({
    kind: 'emitEvent',
    key: `${run.id}:${type}:${prNumbers.join('-')}:${d.at}`,
    event: eventPayload(d, type, prNumbers, run, reason),
  });
}

/** A `queue.*` event: the queue's state changed (no PR is concerned); frozen/unfrozen carry the freeze. */
export function emitQueueEvent(
  d: Draft,
  type: Extract<QueueEventPayload['type'], `queue.${string}`>,
  freeze?: { reason: string; until: number },
): void {
  d.emit({
    kind: 'emitEvent',
    key: `queue:${type}:${d.at}`,
    event: { ...eventPayload(d, type, [], undefined, null), ...(freeze ? { freeze: { ...freeze } } : {}) },
  });
}

/** The payload of an event about `prNumbers` (tested in `run`, if any). */
export function eventPayload(
  d: Draft,
  type: QueueEventPayload['type'],
  prNumbers: number[],
  run: TestRun | undefined,
  reason: TransitionReason | null,
): QueueEventPayload {
  return {
    type,
    at: d.at,
    prNumbers,
    prNumbersInBatch: run && run.prNumbers.length > 1 ? run.prNumbers : prNumbers,
    runId: run?.id ?? null,
    testBranch: run?.testBranch ?? null,
    testBranchSha: run?.testSha ?? null,
    reason,
    batched: (run?.prNumbers.length ?? 1) > 1,
    isBisection: run?.queueType === 'bisection',
  };
}

/** A terminal entry leaves the queue order and any bisection it was part of. */
function forget(d: Draft, prNumber: number): void {
  const at = d.internal.order.indexOf(prNumber);
  if (at >= 0) {
    d.internal.order.splice(at, 1);
    d.reordered();
  }
  for (const b of d.internal.bisections) {
    for (const part of b.parts) {
      if (part.prNumbers.includes(prNumber)) part.prNumbers = part.prNumbers.filter((n) => n !== prNumber);
    }
    // A part left empty is dropped; its run, if any, is abandoned by the run clean-up.
    b.parts = b.parts.filter((p) => p.prNumbers.length > 0);
  }
}
