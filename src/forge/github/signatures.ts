/**
 * "Require signed commits" (classic protection's `required_signatures`, a ruleset's
 * `required_signatures` rule): GitHub accepts on such a branch only commits whose signature it
 * verified. The commits its merge endpoint makes are signed by GitHub (squash and merge commits,
 * and the merge commits of update-branch); a merge commit also brings the PR's own commits, which
 * must be verified; GitHub cannot sign the commits it rebases, so it refuses every rebase merge.
 *
 * What greenline can see of it, in words that name the rule and what to change: a PR GitHub blocks
 * because a commit of it is not verified (it waits with that reason), and a queue whose mergeMethod
 * is rebase (nothing is merged).
 */
import { short } from './branches.js';
import { allPages, type RepoApi } from './client.js';
import type { BranchRules } from './required-checks.js';

/** A commit as the pulls API lists a PR's commits (the fields read here). */
interface PullCommit {
  sha: string;
  commit: { verification?: { verified: boolean; reason: string } };
}

/**
 * Why GitHub blocks PR `number` for its commits' signatures, or null when signatures are not what
 * blocks it: the commits GitHub has not verified, the rule, and how to sign them.
 */
export async function unsignedCommitsReason(
  gh: RepoApi,
  pr: { number: number; baseBranch: string },
  rules: BranchRules,
): Promise<string | null> {
  if (!rules.signatures) return null;
  const commits = await allPages(
    gh.api,
    gh.api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', {
      ...gh.loc,
      pull_number: pr.number,
      per_page: 100,
    }),
    (data) => data as PullCommit[],
  );
  const unverified = commits.filter((c) => c.commit.verification?.verified !== true);
  if (unverified.length === 0) return null;
  const listed = unverified.slice(0, 5).map((c) => `${short(c.sha)} (${c.commit.verification?.reason ?? 'unsigned'})`);
  const more = unverified.length > 5 ? ` and ${unverified.length - 5} more` : '';
  return `${rules.signatures} requires signed commits, and GitHub has not verified the signature of ${unverified.length === 1 ? 'commit' : 'commits'} ${listed.join(', ')}${more} of PR #${pr.number}: sign ${unverified.length === 1 ? 'it' : 'them'} with a key of the author's GitHub account (e.g. git rebase --exec 'git commit --amend --no-edit -S' origin/${pr.baseBranch}) and force-push`;
}

/** Why GitHub refuses to merge with the queue's `method` where signed commits are required; null when it does not. */
export function signaturesRefusal(method: string, rules: BranchRules, target: string): string | null {
  if (!rules.signatures || method !== 'rebase') return null;
  return `${rules.signatures} requires signed commits, and GitHub cannot sign the commits it rebases, so it refuses every rebase merge into ${target}; nothing merged: use mergeMethod squash (GitHub signs the squash commit) or merge_commit (with the PRs' commits signed)`;
}
