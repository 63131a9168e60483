/**
 * Merging a tested batch into its target branch, never half of it before anything is checked and
 * never an untested tree on the target:
 *
 * - `merge_commit` and `rebase`: the target is advanced by a push with lease from exactly the sha the
 *   run was built on to the tested state (the git forge's work, handed in). GitLab marks each MR
 *   merged when its head reaches the target by a push. greenline's user must be allowed to push to
 *   the target (protected branches: "Allowed to push").
 * - `squash`: GitLab has no way to record an MR merged by a squash commit greenline pushes, so each MR
 *   is merged through the merge API, in the tested order, squashed, with its tested head as the `sha`
 *   guard: first the target must still be at the sha the run was built on, then at the commit each
 *   merge answered. greenline's own status on the MR's head is turned to "Tests passed: merging"
 *   first: it is a job of the head's pipeline, which "Pipelines must succeed" requires finished. Each merge applies the MR's changes to exactly the tree the test built them on,
 *   so the target ends on the tested tree.
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
  const { projects, git, presence } = deps;
  if (req.method !== 'squash') return git.advanceTarget(projects.gitBinding(repo), req);
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
        squash: true,
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
