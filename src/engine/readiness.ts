import type { Entry, PrInfo, QueueSnapshot, Readiness, Unmergeable } from './types.js';

/** What getSubmittedPullRequest reports as `readiness` (contract §2.4). */
export function readiness(snapshot: Pick<QueueSnapshot, 'targetBranch' | 'config'>, entry: Entry): Readiness {
  return {
    hasImpactedTargets: entry.impactedTargets !== null,
    requiresImpactedTargets: snapshot.config.mode === 'parallel',
    doesBaseBranchMatch: entry.baseBranch === snapshot.targetBranch,
    mergeability: entry.mergeability,
  };
}

/** Why an entry may not leave NOT_READY yet: the first condition of isReady it does not meet. */
export type NotReadyReason =
  | 'BASE_BRANCH_MISMATCH'
  | 'CONFLICTS_WITH_TARGET'
  | 'DRAFT'
  | 'BLOCKED_BY_FORGE'
  | 'NOT_MERGEABLE'
  | 'MERGEABILITY_PENDING'
  | 'IMPACTED_TARGETS_MISSING';

/** Each NotReadyReason in words: what keeps the PR out of the queue, and what to do. */
export const NOT_READY_WHY: Record<NotReadyReason, string> = {
  BASE_BRANCH_MISMATCH: "its base branch is not the queue's branch; it waits until it is retargeted",
  CONFLICTS_WITH_TARGET:
    'it conflicts with the target branch; merge or rebase the target branch into it, push, and submit it again',
  DRAFT: 'it is a draft; mark it ready for review',
  BLOCKED_BY_FORGE: 'the forge blocks merging it (branch protection: reviews or checks missing)',
  NOT_MERGEABLE: 'the forge says it cannot be merged',
  MERGEABILITY_PENDING: 'waiting for the forge to tell whether it can be merged',
  IMPACTED_TARGETS_MISSING:
    'waiting for the impacted targets of its head (parallel mode: setImpactedTargets, greenline targets set)',
};

const CAUSE_CODE: Record<Unmergeable['cause'], NotReadyReason> = {
  conflict: 'CONFLICTS_WITH_TARGET',
  draft: 'DRAFT',
  blocked: 'BLOCKED_BY_FORGE',
};

/** Whether two views of a PR (the forge's, the entry's) give the same cause of unmergeability. */
export const sameUnmergeable = (a: Pick<PrInfo, 'unmergeable'>, b: Pick<PrInfo, 'unmergeable'>): boolean =>
  JSON.stringify(a.unmergeable) === JSON.stringify(b.unmergeable);

/**
 * An entry may leave NOT_READY when its base is the queue's branch, the forge calls it mergeable
 * (or an admin force-enqueued it, which skips only the mergeability wait) and, in parallel mode,
 * impacted targets are known for its current head (contract §2.4, §5.2). Null when it may.
 */
export function whyNotReady(
  snapshot: Pick<QueueSnapshot, 'targetBranch' | 'config'>,
  entry: Entry,
): NotReadyReason | null {
  const r = readiness(snapshot, entry);
  if (!r.doesBaseBranchMatch) return 'BASE_BRANCH_MISMATCH';
  if (!entry.forceEnqueued && r.mergeability !== 'mergeable') {
    if (r.mergeability !== 'not_mergeable') return 'MERGEABILITY_PENDING';
    return entry.unmergeable ? CAUSE_CODE[entry.unmergeable.cause] : 'NOT_MERGEABLE';
  }
  if (r.requiresImpactedTargets && !r.hasImpactedTargets) return 'IMPACTED_TARGETS_MISSING';
  return null;
}

/** Whether an entry may leave NOT_READY (whyNotReady has nothing against it). */
export function isReady(snapshot: Pick<QueueSnapshot, 'targetBranch' | 'config'>, entry: Entry): boolean {
  return whyNotReady(snapshot, entry) === null;
}
