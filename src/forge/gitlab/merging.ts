/**
 * Merging a tested batch into its target branch, never half of it before anything is checked and
 * never an untested tree on the target:
 *
 * - `merge_commit` and `rebase`, where greenline's user may push to the target (its role against the
 *   protected branch rules matching it): the target is advanced by a push with lease from exactly the
 *   sha the run was built on to the tested state (the git forge's work, handed in). GitLab marks each
 *   MR merged when its head reaches the target by a push.
 * - `merge_commit` where it may not push: each MR is merged through the merge API as a merge commit
 *   of its tested head onto the target, the way the test commit was built, so the target ends on the
 *   tested tree; only with GitLab's merge method "Merge commit" (the others would not make those
 *   merges). `rebase` where it may not push is refused: GitLab's API would rebase the MR's branch.
 *   Either refusal names the setting to change.
 * - `squash`: GitLab has no way to record an MR merged by a squash commit greenline pushes, so each MR
 *   is merged through the merge API, squashed. Each merge applies the MR's changes to exactly the
 *   tree the test built them on, so the target ends on the tested tree.
 *
 * Through the API, MRs merge in the tested order with the tested head as the `sha` guard: first the
 * target must still be at the sha the run was built on, then at the commit each merge answered.
 * greenline's own status on the MR's head is turned to "Tests passed: merging" first: it is a job of
 * the head's pipeline, which "Pipelines must succeed" requires finished. An MR GitLab already shows
 * merged at its tested head was merged by an earlier attempt of the same merge whose answer was lost.
 *
 * GitLab's answers map to the contract's reasons:
 *
 *   the target not where the batch left it              → TARGET_MOVED
 *   409 (`sha` is not the source branch's head)         → PR_UPDATED_AT_MERGE_TIME
 *   405, 406, 422, 401 (cannot merge now, not allowed)  → MERGE_REFUSED, with GitLab's reason and what to change
 *
 * each with the MRs merged before it (`mergedPrNumbers`, `newSha`) when some were.
 */
import type { GitOperations } from '../definition.js';
import type { AdvanceResult, ForgePort, RepoBinding } from '../port.js';
import { GitlabApiError } from './client.js';
import type { GitlabPresence } from './presence.js';
import type { GitlabProjects } from './projects.js';
import { type GitlabProjectFacts, mayPush, projectFacts } from './repository.js';

type AdvanceRequest = Parameters<ForgePort['advanceTarget']>[1];

/** What each refusal of the merge API means, and what to change. */
const REFUSED: Record<number, string> = {
  401: "greenline's GitLab user may not merge into the target: allow its role to merge in the target's protected branch settings",
  405: 'GitLab says the merge request cannot merge now (read its merge checks: draft, pipeline, discussions, approvals)',
  406: 'GitLab says the branch cannot be merged',
  422: 'GitLab could not merge it (a conflict, or the merge method needs a rebase)',
};

export async function advanceTarget(
  deps: { projects: GitlabProjects; git: GitOperations; presence: GitlabPresence },
  repo: RepoBinding,
  req: AdvanceRequest,
): Promise<AdvanceResult> {
  const { projects, git } = deps;
  if (req.method === 'squash') return mergeThroughApi(deps, repo, req);
  const facts = await projectFacts(projects, repo);
  if (!facts || mayPush(facts, req.targetBranch)) return git.advanceTarget(projects.gitBinding(repo), req);
  const refusal = apiMergeRefusal(facts, req);
  if (refusal) return { ok: false, reason: 'MERGE_REFUSED', detail: refusal };
  return mergeThroughApi(deps, repo, req);
}

/**
 * Why the merge API cannot land the tested tree for `merge_commit` or `rebase` (null when it can): a
 * merge commit of each MR's head onto the target, as the test commit was built, needs GitLab's merge
 * method "Merge commit"; a rebase would rewrite the MR's branch.
 */
function apiMergeRefusal(facts: GitlabProjectFacts, req: AdvanceRequest): string | null {
  const cannotPush = `greenline's GitLab user may not push to ${req.targetBranch}`;
  const allowPush = `allow its role to push to ${req.targetBranch} (Settings > Repository > Protected branches, "Allowed to push and merge")`;
  if (req.method === 'rebase')
    return `${cannotPush}, and the merge method rebase needs that push (GitLab's merge API would rebase the merge request's branch): ${allowPush}, or use the merge method squash or merge_commit; nothing merged`;
  if (facts.mergeMethod !== 'merge')
    return `${cannotPush}, and GitLab's merge method "${facts.mergeMethod}" would not land the tested merge commits: ${allowPush}, or set the project's merge method to "Merge commit" (Settings > Merge requests); nothing merged`;
  return null;
}

/**
 * Each MR merged through the merge API, in the tested order, with its tested head as the `sha` guard:
 * squashed for `squash`, else as a merge commit. The target must be at the sha the run was built on,
 * then at the commit each merge answered.
 */
async function mergeThroughApi(
  deps: { projects: GitlabProjects; git: GitOperations; presence: GitlabPresence },
  repo: RepoBinding,
  req: AdvanceRequest,
): Promise<AdvanceResult> {
  const { projects, git, presence } = deps;
  const client = projects.client(repo);
  let at = req.expectedSha;
  const merged: number[] = [];
  const partial = () => (merged.length > 0 ? { mergedPrNumbers: [...merged], newSha: at } : {});
  for (const pr of req.prs) {
    const mr = await projects.mr(repo, pr.number);
    if (mr?.state === 'merged' && mr.sha === pr.headSha) {
      // An earlier attempt of this merge went through, its answer lost: the merge is the queue's own.
      merged.push(pr.number);
      at = mr.merge_commit_sha ?? mr.squash_commit_sha ?? at;
      continue;
    }
    const now = await git.getBranchSha(projects.gitBinding(repo), req.targetBranch);
    if (now !== at)
      return {
        ok: false,
        reason: 'TARGET_MOVED',
        detail: `${req.targetBranch} moved to ${now?.slice(0, 7) ?? 'nothing'} (expected ${at.slice(0, 7)}) before !${pr.number} was merged`,
        ...partial(),
        ...(now ? { newSha: now } : {}),
      };
    let answer: { merge_commit_sha?: string | null; squash_commit_sha?: string | null };
    try {
      if (mr?.sha === pr.headSha) await presence.showMerging(repo, req.targetBranch, mr);
      answer = await client.request('PUT', projects.path(repo, `/merge_requests/${pr.number}/merge`), {
        sha: pr.headSha,
        squash: req.method === 'squash',
      });
    } catch (err) {
      if (!(err instanceof GitlabApiError)) throw err;
      if (err.status === 409)
        return {
          ok: false,
          reason: 'PR_UPDATED_AT_MERGE_TIME',
          detail: `!${pr.number}'s head is no longer the tested ${pr.headSha.slice(0, 7)} (GitLab: ${err.gitlabMessage})`,
          ...partial(),
        };
      return {
        ok: false,
        reason: 'MERGE_REFUSED',
        detail: `!${pr.number}: ${REFUSED[err.status] ?? `GitLab answered ${err.status}`} (GitLab: ${err.gitlabMessage})`,
        ...partial(),
      };
    }
    merged.push(pr.number);
    const tip =
      answer.merge_commit_sha ??
      answer.squash_commit_sha ??
      (await git.getBranchSha(projects.gitBinding(repo), req.targetBranch));
    if (!tip) return { ok: false, reason: 'TARGET_MOVED', detail: `${req.targetBranch} is gone`, ...partial() };
    at = tip;
  }
  return { ok: true, newSha: at };
}
