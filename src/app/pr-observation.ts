/**
 * What the forge's current view of a queued PR means to the queue (forge poller, GitHub webhooks):
 * gone → prMergedOutside when it was merged, else prClosed; a new head, base, title, mergeability or
 * cause of unmergeability → prObserved; nothing else changes the entry.
 */
import { sameUnmergeable } from '../engine/index.js';
import type { EngineEvent, Entry, PrInfo } from '../engine/types.js';

/** Whether the forge's PR differs from the entry in anything the engine keeps. */
export function prChanged(e: Entry, pr: PrInfo): boolean {
  return e.headSha !== pr.headSha || e.baseBranch !== pr.baseBranch || e.title !== pr.title || e.mergeability !== pr.mergeability
    || !sameUnmergeable(e, pr);
}

/** The event for the entry, given the forge's PR (null: no longer open, `merged` telling how it left). */
export function observedPrEvent(e: Entry, pr: PrInfo | null, merged: boolean, at: number): EngineEvent | null {
  if (!pr) return { kind: merged ? 'prMergedOutside' : 'prClosed', at, prNumber: e.prNumber };
  return prChanged(e, pr) ? { kind: 'prObserved', at, pr } : null;
}
