/**
 * Pull requests as GitHub's pulls API shows them, and what the queue reads of them: draft PRs, PRs
 * with conflicts and PRs GitHub blocks (branch protection not met) are `not_mergeable`; a PR of a
 * GitHub stack is like any other (its base is the PR below it until that one is merged; merging.ts
 * merges it through GitHub's asynchronous merge); while GitHub is still computing mergeability they are `in_progress`. `behind` (the head lacks the
 * base's tip under "require branches to be up to date") is mergeable for the queue, which tests the
 * PR on the tip: whether the tested result can land is merging.ts's question. A PR blocked only by
 * greenline's own check (`ownCheckOnly`, see required-checks.ts blockedOnlyByOwnCheck) is not blocked
 * for the queue: the queue passes that check itself when it merges the PR.
 */
import type { Mergeability, PrInfo, Unmergeable } from '../../engine/types.js';
import { hasStatus, type RepoApi } from './client.js';
import { titleFromDescription } from '../../engine/commit-message.js';

/** What the pulls API says about a PR (the fields the forge reads). */
export interface GitHubPull {
  number: number;
  state: string;
  merged?: boolean;
  merged_at?: string | null;
  draft?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  merge_commit_sha?: string | null;
  title: string;
  body?: string | null;
  user: { login: string } | null;
  head: { sha: string; ref: string; label?: string };
  base: { sha: string; ref: string };
  labels?: { name: string }[];
  /** The GitHub stack the PR belongs to, if any. */
  stack?: { size?: number; position?: number; number?: number } | null;
}

/** The pulls API's PR, or null when it does not exist. */
export async function fetchPull({ api, loc }: RepoApi, number: number): Promise<GitHubPull | null> {
  try {
    const { data } = await api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...loc,
      pull_number: number,
    });
    return data as GitHubPull;
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
}

/** Whether GitHub reports the PR merged (by the queue or by anyone else). */
export function isMerged(pr: GitHubPull | null): boolean {
  return Boolean(pr?.merged || pr?.merged_at);
}

/**
 * The message of the merge commit GitHub's merge endpoint makes for a PR (`merge_method: merge`):
 * "Merge pull request #N from owner/branch" — or the PR body's `merge-commit-title:` line — then the
 * PR's title. Test branches are built with it, so that fast-forwarding the target to a tested commit
 * lands the history merging PR by PR would have.
 */
export function mergeCommitMessage(pr: GitHubPull, owner: string): string {
  const from = pr.head.label?.replace(':', '/') ?? `${owner}/${pr.head.ref}`;
  return `${titleFromDescription(pr.body) ?? `Merge pull request #${pr.number} from ${from}`}\n\n${pr.title}`;
}

/** Whether GitHub blocks the PR for the queue (not when it misses only greenline's own check). */
const isBlocked = (pr: GitHubPull, ownCheckOnly: boolean): boolean => pr.mergeable_state === 'blocked' && !ownCheckOnly;

export function mergeabilityOf(pr: GitHubPull, ownCheckOnly = false): Mergeability {
  if (pr.draft) return 'not_mergeable';
  if (pr.mergeable === false || pr.mergeable_state === 'dirty' || isBlocked(pr, ownCheckOnly)) return 'not_mergeable';
  if (pr.mergeable === null || pr.mergeable === undefined || pr.mergeable_state === 'unknown') return 'in_progress';
  return 'mergeable';
}

/** Why mergeabilityOf calls the PR not_mergeable; `blockedBecause`: why GitHub blocks it, when greenline can tell. */
function unmergeableOf(pr: GitHubPull, ownCheckOnly: boolean, blockedBecause: string | null): Unmergeable | undefined {
  if (pr.draft) return { cause: 'draft' };
  if (pr.mergeable === false || pr.mergeable_state === 'dirty') return { cause: 'conflict' };
  if (isBlocked(pr, ownCheckOnly)) return { cause: 'blocked', ...(blockedBecause ? { detail: blockedBecause } : {}) };
  return undefined;
}

/**
 * `ownCheckOnly`: GitHub blocks the PR, but only for greenline's own check; `blockedBecause`: why
 * GitHub blocks it, in words, where greenline can tell (signatures.ts).
 */
export function prInfoOf(pr: GitHubPull, ownCheckOnly = false, blockedBecause: string | null = null): PrInfo {
  const unmergeable = unmergeableOf(pr, ownCheckOnly, blockedBecause);
  return {
    number: pr.number,
    headSha: pr.head.sha,
    baseBranch: pr.base.ref,
    headBranch: pr.head.ref,
    title: pr.title,
    author: pr.user?.login ?? '',
    mergeability: mergeabilityOf(pr, ownCheckOnly),
    ...(unmergeable ? { unmergeable } : {}),
    ...(pr.labels ? { labels: pr.labels.map((l) => l.name) } : {}),
  };
}
