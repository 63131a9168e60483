/**
 * Merging a tested batch into its target branch. `merge_commit` fast-forwards the target to the
 * tested commit (update ref, force=false) when the repository allows it; otherwise, and for `squash`
 * and `rebase`, each PR is merged through the merge endpoint with the queue's method and its tested
 * head as the `sha` guard. GitHub's refusals map to the contract's reasons:
 *
 *   target not at the expected sha (before or during the merge) → TARGET_MOVED
 *   a PR's head is not the tested one, or 409 from the merge     → PR_UPDATED_AT_MERGE_TIME
 *   any other refusal of the merge endpoint                      → GITHUB_API_MERGE_PR_FAILED
 *
 * each with the PRs merged before it (`mergedPrNumbers`, `newSha`) when some were.
 */
import type { Logger } from 'pino';
import type { AdvanceResult, ForgePort } from '../../../ports.js';
import { getBranchSha, short } from './branches.js';
import { failureOf, hasStatus, type RepoApi } from './client.js';
import { fetchPull, isMerged } from './pulls.js';

/** What advanceTarget is asked: the tested batch and where its target should be. */
export type AdvanceRequest = Parameters<ForgePort['advanceTarget']>[1];

/** The merge endpoint's `merge_method` for each of the queue's methods. */
const API_METHOD = { merge_commit: 'merge', squash: 'squash', rebase: 'rebase' } as const;

/** The PR body line `merge-commit-title: <title>` (contract §4 mergeMethod), if any. */
export function mergeCommitTitle(body: string | null | undefined): string | null {
  const m = /^merge-commit-title: *(.+?) *$/m.exec(body ?? '');
  return m ? m[1]! : null;
}

export async function advanceTarget(gh: RepoApi, logger: Logger, req: AdvanceRequest): Promise<AdvanceResult> {
  const { api, loc } = gh;
  const current = await getBranchSha(gh, req.targetBranch);
  const pulls = await Promise.all(req.prs.map((p) => fetchPull(gh, p.number)));
  const alreadyMerged = req.prs.filter((_, i) => isMerged(pulls[i]!)).map((p) => p.number);

  if (current !== req.expectedSha) {
    // A retry of a merge that went through (its answer was lost) finds every PR merged.
    if (current && alreadyMerged.length === req.prs.length) return { ok: true, newSha: current };
    return {
      ok: false,
      reason: 'TARGET_MOVED',
      detail: `${req.targetBranch} is ${current ? `at ${short(current)}` : 'gone'}, not at ${short(req.expectedSha)}`,
      ...(alreadyMerged.length > 0 ? { mergedPrNumbers: alreadyMerged } : {}),
      ...(current ? { newSha: current } : {}),
    };
  }
  const moved = req.prs.filter((p, i) => !isMerged(pulls[i]!) && pulls[i]?.head.sha !== p.headSha);
  if (moved.length > 0) {
    const what = moved.map((p) => {
      const now = pulls[req.prs.indexOf(p)];
      return `PR #${p.number} is ${now ? `at ${short(now.head.sha)}` : 'gone'}, not at the tested ${short(p.headSha)}`;
    });
    return { ok: false, reason: 'PR_UPDATED_AT_MERGE_TIME', detail: `${what.join('; ')}; nothing merged` };
  }

  if (req.method === 'merge_commit' && alreadyMerged.length === 0) {
    const ff = await fastForward(gh, logger, req.targetBranch, req.testSha);
    if (ff === 'done') return { ok: true, newSha: req.testSha };
    if (ff === 'moved') {
      const now = await getBranchSha(gh, req.targetBranch);
      return {
        ok: false,
        reason: 'TARGET_MOVED',
        detail: `${req.targetBranch} moved to ${now ? short(now) : 'nothing'} during the merge; nothing merged`,
      };
    }
  }

  const merged: number[] = [...alreadyMerged];
  let newSha = req.expectedSha;
  for (const [i, p] of req.prs.entries()) {
    if (merged.includes(p.number)) continue;
    const title = req.method === 'rebase' ? null : mergeCommitTitle(pulls[i]!.body);
    try {
      const { data } = await api.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        ...loc,
        pull_number: p.number,
        sha: p.headSha,
        merge_method: API_METHOD[req.method],
        ...(title ? { commit_title: title } : {}),
      });
      merged.push(p.number);
      newSha = data.sha;
    } catch (err) {
      const failure = failureOf(err);
      const partial = merged.length > 0 ? { mergedPrNumbers: [...merged], newSha } : {};
      if (failure.status === 409) {
        return {
          ok: false,
          reason: 'PR_UPDATED_AT_MERGE_TIME',
          detail: `PR #${p.number} changed before it was merged: ${failure.message}`,
          ...partial,
        };
      }
      // 405 "merge already in progress" (after retries) may have merged it after all.
      const after = await fetchPull(gh, p.number);
      if (after && isMerged(after) && after.merge_commit_sha) {
        merged.push(p.number);
        newSha = (await getBranchSha(gh, req.targetBranch)) ?? after.merge_commit_sha;
        continue;
      }
      logger.warn({ pr: p.number, status: failure.status, message: failure.message }, 'GitHub refused a merge');
      return {
        ok: false,
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail: `GitHub refused to merge PR #${p.number} (HTTP ${failure.status}): ${failure.message}`,
        ...partial,
      };
    }
  }
  logger.info({ target: req.targetBranch, prs: merged, method: req.method, newSha }, 'pull requests merged');
  return { ok: true, newSha };
}

/** 'done', 'moved' (not a fast-forward any more), or 'refused' (protection: merge PR by PR instead). */
async function fastForward(
  { api, loc }: RepoApi,
  logger: Logger,
  branch: string,
  sha: string,
): Promise<'done' | 'moved' | 'refused'> {
  try {
    await api.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
      ...loc,
      ref: `heads/${branch}`,
      sha,
      force: false,
    });
    return 'done';
  } catch (err) {
    if (!hasStatus(err, 403, 422)) throw err;
    const { message } = failureOf(err);
    if (/fast.forward/i.test(message)) return 'moved';
    logger.info({ branch, message }, 'fast-forward refused; merging pull request by pull request');
    return 'refused';
  }
}
