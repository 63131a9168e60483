/**
 * Which queued reason (contract §5.2, webhook `queued_reason`) explains a restart caused by another
 * entry: one that left (failed, cancelled, merged outside) or one that now stands ahead of the run
 * without being in it (an urgent PR, a PR restarted or cleared by bisection).
 */
import type { Entry, QueuedReason } from './types.js';

const QUEUED_REASONS: ReadonlySet<string> = new Set<QueuedReason>([
  'MANUAL_PUSH_TO_TARGET_BRANCH',
  'PREREQUISITE_MERGE_ITEM_CANCELLED',
  'PREREQUISITE_MERGE_ITEM_FAILED',
  'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED',
  'TESTS_RESTARTED_BY_USER',
  'TESTS_RESTARTED_BY_API_REQUEST',
  'SKIP_THE_LINE_INTERRUPTED',
  'BISECTION_REQUIRED',
  'BISECTION_TEST_RUN_PASSED',
]);

/** A run included `e`, which is no longer a valid part of its base. */
export function reasonForLeaver(e: Entry | undefined, fallback: QueuedReason): QueuedReason {
  if (e?.state === 'FAILED') return 'PREREQUISITE_MERGE_ITEM_FAILED';
  if (e?.state === 'CANCELLED') return 'PREREQUISITE_MERGE_ITEM_CANCELLED';
  if (e?.state === 'MERGED' && e.lastReason === 'MANUAL_MERGE') return 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED';
  return fallback;
}

/** `e` now stands ahead of a run that did not include it. */
export function reasonForNewcomer(e: Entry, fallback: QueuedReason): QueuedReason {
  if (e.skipTheLine) return 'SKIP_THE_LINE_INTERRUPTED';
  if (QUEUED_REASONS.has(e.lastReason)) return e.lastReason as QueuedReason;
  return fallback;
}
