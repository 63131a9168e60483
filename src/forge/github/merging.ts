/**
 * Merging a tested batch into its target branch. `merge_commit` fast-forwards the target to the
 * tested commit (update ref, force=false) when the repository allows it (no protection, or greenline's
 * App may bypass it): the target then holds exactly what was tested. Otherwise, and for `squash` and
 * `rebase`, each PR is merged through the merge endpoint with the queue's method and its tested head
 * as the `sha` guard. A PR of a GitHub stack is merged through GitHub's asynchronous merge instead
 * (merge-async.ts), the only one GitHub allows for it, with the same guard; the target is then never
 * fast-forwarded past it.
 *
 * Never half a batch for what can be known before: before the first merge call, what GitHub would
 * refuse is found and nothing is merged, with the setting to change in words: a `merge_queue` rule (GitHub's own queue refuses outside merges), and
 * rebase merges where signed commits are required (signatures.ts).
 *
 * "Require branches to be up to date before merging" (strict) does not lose a PR: after the first
 * merge every other PR is `behind`, and GitHub refuses a PR whose head lacks the target's tip. Each
 * such PR's branch is brought up to date (up-to-date.ts: `update-branch` with the tested head as
 * `expected_head_sha`) and merged with its new head as the `sha` guard, one PR after the other; the
 * new head holds the target's tip and the tested head, so the target ends on the tested content. The
 * merge then says what this cost (a merge commit in each PR's branch, one PR at a time) and which
 * setting would spare it (`note`).
 *
 * GitHub's refusals map to the contract's reasons:
 *
 *   target not at the expected sha (before or during the merge) → TARGET_MOVED
 *   a PR's head is not the tested one, or 409 from the merge     → PR_UPDATED_AT_MERGE_TIME
 *   update-branch refused for a head that is not the tested one  → PR_UPDATED_AT_MERGE_TIME
 *   what GitHub would refuse (above), any other refusal          → MERGE_REFUSED
 *
 * each with the PRs merged before it (`mergedPrNumbers`, `newSha`) when some were. A 405 is final
 * unless GitHub's message says to try again ("Base branch was modified", "merge already in
 * progress"); that merge is tried again while the target is where the batch's merges left it.
 */
import type { Logger } from 'pino';
import type { AdvanceResult, ForgePort } from '../port.js';
import { getBranchSha, short } from './branches.js';
import { failureOf, hasStatus, type RepoApi } from './client.js';
import { hasOwnMergeMessages, mergeMessageFields } from './commit-messages.js';
import { type AsyncMergePolling, mergeAsync } from './merge-async.js';
import { fetchPull, type GitHubPull, isMerged } from './pulls.js';
import { type BranchRules, branchRules } from './required-checks.js';
import { signaturesRefusal } from './signatures.js';
import { upToDateHead } from './up-to-date.js';

/** What advanceTarget is asked: the tested batch and where its target should be. */
export type AdvanceRequest = Parameters<ForgePort['advanceTarget']>[1];

/** The merge endpoint's `merge_method` for each of the queue's methods. */
const API_METHOD = { merge_commit: 'merge', squash: 'squash', rebase: 'rebase' } as const;

/** Attempts of one PR's merge when GitHub answers a 405 that says to try again. */
const MERGE_ATTEMPTS = 3;

/** A 405 of the merge endpoint that GitHub says may succeed when tried again. */
const mayRetry = (message: string): boolean => /try the merge again|already in progress/i.test(message);

/**
 * `polling`: how a stacked PR's asynchronous merge is followed. `passOwnCheck`: gives a head greenline's own check as passed, where the target requires it (a PR
 * head GitHub brought up to date has the tested content, see up-to-date.ts).
 */
export async function advanceTarget(
  gh: RepoApi,
  logger: Logger,
  req: AdvanceRequest,
  polling: AsyncMergePolling,
  passOwnCheck: (sha: string) => Promise<void>,
): Promise<AdvanceResult> {
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

  const before = alreadyMerged.length > 0 ? { mergedPrNumbers: alreadyMerged, newSha: req.expectedSha } : {};
  const todo = pulls.filter((pr): pr is GitHubPull => pr !== null && !isMerged(pr));
  const stacked = todo.some((pr) => pr.stack);

  // Every PR was found: a missing one is among `moved` above.
  const messages = await mergeMessageFields(gh, req.method, req.messages, pulls as GitHubPull[], req.ownMessages);
  // The tested merge commits carry GitHub's messages: the queue's or a PR's own are GitHub's merges.
  const ownMessages = hasOwnMergeMessages(req.messages, todo, req.ownMessages);
  let refusedFastForward: string | null = null;
  if (req.method === 'merge_commit' && alreadyMerged.length === 0 && !ownMessages && !stacked) {
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
    refusedFastForward = ff.refused;
  }
  const rules = todo.length > 0 ? await branchRules(gh, req.targetBranch) : null;
  const blocked = rules ? whyGitHubRefuses(req, rules, refusedFastForward) : null;
  if (blocked) return { ok: false, reason: 'MERGE_REFUSED', detail: blocked, ...before };

  const merged: number[] = [...alreadyMerged];
  const updated: number[] = [];
  let newSha = req.expectedSha;
  for (const [i, p] of req.prs.entries()) {
    if (merged.includes(p.number)) continue;
    if (pulls[i]!.stack) {
      const end = await mergeAsync(gh, p, API_METHOD[req.method], messages[i]?.commit_title ?? null, polling);
      if ('merged' in end) {
        merged.push(p.number);
        newSha = end.merged;
        continue;
      }
      return {
        ok: false,
        reason: end.changed ? 'PR_UPDATED_AT_MERGE_TIME' : 'MERGE_REFUSED',
        detail: `${end.refused}${merged.length === 0 ? '; nothing merged' : ''}`,
        ...(merged.length > 0 ? { mergedPrNumbers: [...merged], newSha } : {}),
      };
    }
    let head = p.headSha;
    if (rules?.strict) {
      const upToDate = await upToDateHead(gh, p, req.targetBranch, newSha, passOwnCheck);
      if (!upToDate.ok) {
        const partial = merged.length > 0 ? { mergedPrNumbers: [...merged], newSha } : {};
        return { ok: false, reason: upToDate.reason, detail: upToDate.detail, ...partial };
      }
      head = upToDate.head;
      if (upToDate.updated) updated.push(p.number);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const { data } = await api.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
          ...loc,
          pull_number: p.number,
          sha: head,
          merge_method: API_METHOD[req.method],
          ...messages[i],
        });
        merged.push(p.number);
        newSha = data.sha;
        break;
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
        // A 5xx or a 405 "merge already in progress" may have merged it after all.
        const after = await fetchPull(gh, p.number);
        if (after && isMerged(after) && after.merge_commit_sha) {
          merged.push(p.number);
          newSha = (await getBranchSha(gh, req.targetBranch)) ?? after.merge_commit_sha;
          break;
        }
        // Tried again only where the target is still where this batch's merges left it.
        if (failure.status === 405 && mayRetry(failure.message) && attempt < MERGE_ATTEMPTS) {
          const now = await getBranchSha(gh, req.targetBranch);
          if (now === newSha) continue;
          const moved = `${req.targetBranch} moved to ${now ? short(now) : 'nothing'} outside the queue while PR #${p.number} was being merged (GitHub: ${failure.message})`;
          // Nothing merged yet: like any push from outside. Otherwise the PRs merged must be told.
          if (merged.length === 0) {
            return {
              ok: false,
              reason: 'TARGET_MOVED',
              detail: `${moved}; nothing merged`,
              ...(now ? { newSha: now } : {}),
            };
          }
          return { ok: false, reason: 'MERGE_REFUSED', detail: moved, ...partial };
        }
        logger.warn({ pr: p.number, status: failure.status, message: failure.message }, 'GitHub refused a merge');
        return {
          ok: false,
          reason: 'MERGE_REFUSED',
          detail: `GitHub refused to merge PR #${p.number} (HTTP ${failure.status}): ${failure.message}${merged.length === 0 ? '; nothing merged' : ''}`,
          ...partial,
        };
      }
    }
  }
  logger.info({ target: req.targetBranch, prs: merged, method: req.method, newSha, updated }, 'pull requests merged');
  return updated.length > 0 && rules?.strict
    ? { ok: true, newSha, note: strictCost(req, rules.strict, updated) }
    : { ok: true, newSha };
}

/** What merging under strict protection cost (`updated`: the PRs whose branches GitHub brought up to date), and what would spare it. */
function strictCost(req: AdvanceRequest, rule: string, updated: number[]): string {
  const target = req.targetBranch;
  const prs = updated.map((n) => `#${n}`).join(', ');
  const faster =
    req.method === 'merge_commit'
      ? `allow greenline's App to bypass the rule (greenline then fast-forwards ${target} to the tested commit)`
      : `use mergeMethod merge_commit and allow greenline's App to bypass the rule (greenline then fast-forwards ${target} to the tested commit)`;
  return `${rule} requires branches to be up to date before merging (strict) and greenline merges with ${req.method}, so GitHub merged ${target} into the branch of ${updated.length === 1 ? 'PR' : 'PRs'} ${prs} (update-branch) and greenline merged the PRs one at a time, each on the tested content: each update adds a merge commit to the PR's branch and starts its checks on GitHub again. To merge a batch at once: ${faster}, or turn off 'Require branches to be up to date before merging' in ${rule}`;
}

/** 'done', 'moved' (not a fast-forward any more), or refused with GitHub's message (protection: merge PR by PR instead). */
async function fastForward(
  { api, loc }: RepoApi,
  logger: Logger,
  branch: string,
  sha: string,
): Promise<'done' | 'moved' | { refused: string }> {
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
    return { refused: message };
  }
}

/**
 * Why GitHub would refuse to merge the batch's PRs one by one through its merge endpoint, in words
 * that name the setting and what to change; null when nothing says so. Asked before the first merge
 * call, so that a batch is merged whole or not at all. `refusedFastForward`: GitHub's answer to
 * fast-forwarding the target (merge_commit), when it refused.
 */
function whyGitHubRefuses(req: AdvanceRequest, rules: BranchRules, refusedFastForward: string | null): string | null {
  const target = req.targetBranch;
  const unsignable = signaturesRefusal(req.method, rules, target);
  if (unsignable) return unsignable;
  if (!rules.mergeQueue) return null;
  // What lands exactly the tested commit: fast-forwarding the target, which needs merge_commit and the bypass.
  const landTested =
    req.method !== 'merge_commit'
      ? `or use mergeMethod merge_commit and allow greenline's App to bypass the rule (greenline then fast-forwards ${target} to the tested commit)`
      : `or allow greenline's App to bypass the rule, so that greenline can fast-forward ${target} to the tested commit${refusedFastForward ? ` (GitHub refused: ${oneLine(refusedFastForward)})` : ''}`;
  return `${rules.mergeQueue} requires GitHub's merge queue (merge_queue rule), and GitHub refuses every merge made outside it; nothing merged: remove the merge_queue rule for ${target} to merge with greenline, ${landTested}`;
}

const oneLine = (message: string): string => message.replace(/\s+/g, ' ').trim();
