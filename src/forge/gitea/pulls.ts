/**
 * PRs as the queue reads them: base, head (`refs/pull/<n>/head` in the base repository), title,
 * author, labels; a draft (`WIP:` title) or a PR the forge reports not mergeable (conflicts) waits,
 * saying why. Closed PRs do not exist for the queue; merged ones show as merged.
 */
import type { PrInfo } from '../../engine/types.js';
import type { RepoBinding } from '../port.js';
import type { GiteaRepos } from './repos.js';

export async function getPullRequest(repos: GiteaRepos, repo: RepoBinding, number: number): Promise<PrInfo | null> {
  if (!Number.isSafeInteger(number) || number < 1) return null;
  const pr = await repos.pull(repo, number);
  if (pr?.state !== 'open') return null;
  const unmergeable = pr.draft
    ? { cause: 'draft' as const }
    : pr.mergeable === false
      ? { cause: 'conflict' as const }
      : undefined;
  return {
    number: pr.number,
    headSha: pr.head.sha,
    baseBranch: pr.base.ref,
    headBranch: pr.head.ref,
    title: pr.title,
    author: pr.user?.login ?? '',
    mergeability: unmergeable ? 'not_mergeable' : 'mergeable',
    ...(unmergeable ? { unmergeable } : {}),
    labels: (pr.labels ?? []).map((l) => l.name),
  };
}

export async function wasMerged(repos: GiteaRepos, repo: RepoBinding, number: number): Promise<boolean> {
  return (await repos.pull(repo, number))?.merged === true;
}
