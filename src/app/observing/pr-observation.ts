/**
 * What the forge's current view of a queued PR means to the queue (forge poller, GitHub webhooks):
 * gone → prMergedOutside when it was merged, else prClosed; the same head become a draft →
 * prConvertedToDraft (forges that tell it only by the PR read again: Gitea's and Forgejo's `WIP:`
 * titles, or a GitHub delivery that was lost); a new head, base, title, mergeability, cause of
 * unmergeability or labels, or the facts of a direct merge → prObserved; nothing else changes the entry.
 */
import { labelsChanged, sameUnmergeable } from '../../engine/index.js';
import type { EngineEvent, Entry, PrInfo } from '../../engine/types.js';

/** Whether the forge's PR differs from the entry in anything the engine keeps. */
export function prChanged(e: Entry, pr: PrInfo): boolean {
  return (
    e.headSha !== pr.headSha ||
    e.baseBranch !== pr.baseBranch ||
    e.title !== pr.title ||
    e.mergeability !== pr.mergeability ||
    !sameUnmergeable(e, pr) ||
    labelsChanged(e, pr)
  );
}

/** Whether the forge's PR carries the facts that let it merge directly (ForgePort.directMergeFacts). */
export const mayMergeDirectly = (pr: PrInfo): boolean => pr.checksPassed === true && pr.baseSha !== undefined;

/**
 * The event for the entry, given the forge's PR (null: no longer open, `merged` telling how it left).
 * A PR that may merge directly is news even when nothing else of it changed.
 */
export function observedPrEvent(e: Entry, pr: PrInfo | null, merged: boolean, at: number): EngineEvent | null {
  if (!pr) return { kind: merged ? 'prMergedOutside' : 'prClosed', at, prNumber: e.prNumber };
  if (pr.headSha === e.headSha && pr.unmergeable?.cause === 'draft' && e.unmergeable?.cause !== 'draft')
    return { kind: 'prConvertedToDraft', at, prNumber: e.prNumber };
  return prChanged(e, pr) || mayMergeDirectly(pr) ? { kind: 'prObserved', at, pr } : null;
}
