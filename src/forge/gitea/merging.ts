/**
 * Merging: the target is advanced by a push with lease to exactly the tested commit (the git forge's
 * work, handed in), then each PR so landed is recorded merged on the forge with the merge endpoint's
 * `manually-merged` style, the tested head as `head_commit_id` (the forge refuses a PR whose head
 * moved) and the target's new commit as the merge commit: the forge shows it merged, not closed.
 * The merge and squash commits the git forge writes take the PRs' titles and descriptions from the
 * forge (engine/commit-message.ts).
 */
import type { Logger } from 'pino';
import type { GitOperations } from '../definition.js';
import type { AdvanceResult, DescribedPr, ForgePort, RepoBinding } from '../port.js';
import { GiteaApiError } from './client.js';
import { wasMerged } from './pulls.js';
import type { GiteaRepos } from './repos.js';

/**
 * A PR the forge will not record merged (its head moved after the push, someone merged it meanwhile)
 * is logged: the target holds its tested change either way.
 */
export async function advanceTarget(
  deps: { repos: GiteaRepos; git: GitOperations; logger: Logger },
  repo: RepoBinding,
  req: Parameters<ForgePort['advanceTarget']>[1],
): Promise<AdvanceResult> {
  const { repos, git, logger } = deps;
  const result = await git.advanceTarget(repos.gitBinding(repo), {
    ...req,
    described: await described(repos, repo, req),
  });
  if (!result.ok) return result;
  const client = repos.client(repo);
  const forgejo = (await client.dialect()) === 'forgejo';
  for (const pr of req.prs) {
    try {
      await client.request('POST', repos.path(repo, `/pulls/${pr.number}/merge`), {
        [forgejo ? 'Do' : 'do']: 'manually-merged',
        [forgejo ? 'MergeCommitID' : 'merge_commit_id']: result.newSha,
        head_commit_id: pr.headSha,
      });
    } catch (err) {
      if (!(err instanceof GiteaApiError)) throw err;
      const merged = await wasMerged(repos, repo, pr.number).catch(() => false);
      if (!merged)
        logger.warn(
          { pr: pr.number, target: req.targetBranch, sha: result.newSha, err: err.message },
          `PR #${pr.number} landed on ${req.targetBranch} but the forge did not record it merged: ${err.message}`,
        );
    }
  }
  return result;
}

/** The PRs' titles, descriptions, authors and head branches, for the commit messages (not for rebase). */
async function described(
  repos: GiteaRepos,
  repo: RepoBinding,
  req: Parameters<ForgePort['advanceTarget']>[1],
): Promise<Map<number, DescribedPr>> {
  if (req.method === 'rebase') return new Map();
  const pulls = await Promise.all(req.prs.map((p) => repos.pull(repo, p.number)));
  return new Map(
    pulls
      .filter((p) => p !== null)
      .map((p) => [
        p.number,
        { title: p.title, body: p.body ?? '', author: p.user?.login ?? '', headBranch: p.head.ref },
      ]),
  );
}
