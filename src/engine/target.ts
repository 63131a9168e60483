import type { Draft } from './draft.js';

/**
 * The target branch was seen at `sha`, not through a merge of ours (first sighting, a push from
 * outside, or a merge we lost the race to). The history restarts at `sha`: every run built on an
 * older sha is no longer valid and restarts (MANUAL_PUSH_TO_TARGET_BRANCH, contract §6.10).
 */
export function applyTargetMove(d: Draft, sha: string): void {
  d.targetSha = sha;
  d.internal.targetHistory = [{ sha, prs: [] }];
  d.touch();
}
