import type { Entry, QueueSnapshot, Readiness } from './types.js';

/** What getSubmittedPullRequest reports as `readiness` (contract §2.4). */
export function readiness(snapshot: Pick<QueueSnapshot, 'targetBranch' | 'config'>, entry: Entry): Readiness {
  return {
    hasImpactedTargets: entry.impactedTargets !== null,
    requiresImpactedTargets: snapshot.config.mode === 'parallel',
    doesBaseBranchMatch: entry.baseBranch === snapshot.targetBranch,
    gitHubMergeability: entry.mergeability,
  };
}

/**
 * An entry may leave NOT_READY when its base is the queue's branch, the forge calls it mergeable
 * (or an admin force-enqueued it, which skips only the mergeability wait) and, in parallel mode,
 * impacted targets are known for its current head (contract §2.4, §5.2).
 */
export function isReady(snapshot: Pick<QueueSnapshot, 'targetBranch' | 'config'>, entry: Entry): boolean {
  const r = readiness(snapshot, entry);
  return r.doesBaseBranchMatch
    && (entry.forceEnqueued || r.gitHubMergeability === 'mergeable')
    && (!r.requiresImpactedTargets || r.hasImpactedTargets);
}
