/**
 * Merging: the target is advanced by a push with lease to exactly the tested commit (the git forge's
 * work, handed in), then each PR so landed is recorded merged on the forge with the merge endpoint's
 * `manually-merged` style and the target's new commit as the merge commit: the forge shows it merged,
 * not closed. The forges spell that field differently by version (Gitea 1.26 and Forgejo bind
 * `MergeCommitID`, Gitea 1.28 documents `merge_commit_id`; each ignores the other), so both are sent.
 * The forge ignores `head_commit_id` for this style; it is sent for the forges that may heed it, and
 * the push with lease is what guards the tested head.
 * The merge and squash commits the git forge writes take the PRs' titles and descriptions from the
 * forge (engine/commit-message.ts).
 */
import type { Logger } from 'pino';
import type { GitOperations } from '../definition.js';
import type { AdvanceResult, DescribedPr, ForgePort, RepoBinding } from '../port.js';
import { GiteaApiError } from './client.js';
import type { GiteaPresence } from './presence.js';
import { wasMerged } from './pulls.js';
import type { GiteaRepos } from './repos.js';

/**
 * A PR the forge will not record merged (manual merge not allowed, someone merged it meanwhile) is
 * told on the PR in words, logged once, and said in the merge's note, which the queue keeps as the
 * MERGED PRs' detail: the target holds its tested change either way.
 */
export async function advanceTarget(
  deps: { repos: GiteaRepos; git: GitOperations; presence: GiteaPresence; logger: Logger },
  repo: RepoBinding,
  req: Parameters<ForgePort['advanceTarget']>[1],
): Promise<AdvanceResult> {
  const { repos, git, presence, logger } = deps;
  const result = await git.advanceTarget(repos.gitBinding(repo), {
    ...req,
    described: await described(repos, repo, req),
  });
  if (!result.ok) return result;
  const client = repos.client(repo);
  const forgejo = (await client.dialect()) === 'forgejo';
  const unrecorded: string[] = [];
  for (const pr of req.prs) {
    try {
      await client.request('POST', repos.path(repo, `/pulls/${pr.number}/merge`), {
        [forgejo ? 'Do' : 'do']: 'manually-merged',
        MergeCommitID: result.newSha,
        merge_commit_id: result.newSha,
        head_commit_id: pr.headSha,
      });
    } catch (err) {
      if (!(err instanceof GiteaApiError)) throw err;
      if (await wasMerged(repos, repo, pr.number).catch(() => false)) continue;
      const why = refusalInWords(err);
      unrecorded.push(`#${pr.number}: ${why}`);
      logger.warn(
        { pr: pr.number, target: req.targetBranch, sha: result.newSha },
        `PR #${pr.number} landed on ${req.targetBranch} but the forge did not record it merged: ${why}`,
      );
      await presence
        .reply(
          repo,
          pr.number,
          `This PR landed on \`${req.targetBranch}\` as ${result.newSha} (the tested commit), but ${forgejo ? 'Forgejo' : 'Gitea'} refused to record it merged: ${why}\n\nIts change is in \`${req.targetBranch}\`; the PR stays open until it is closed.`,
        )
        .catch((replyErr: unknown) => logger.warn({ err: replyErr, pr: pr.number }, 'telling the PR failed'));
    }
  }
  if (unrecorded.length === 0) return result;
  const note = `landed on ${req.targetBranch}, but ${forgejo ? 'Forgejo' : 'Gitea'} refused to record it merged, so the PR stays open there (${unrecorded.join('; ')})`;
  return { ...result, note: result.note ? `${result.note}; ${note}` : note };
}

/** The forge's refusal of a merge record, with what to change when the answer says. */
function refusalInWords(err: GiteaApiError): string {
  if (err.status === 405 && /manually-merged|not allowed/i.test(err.message))
    return `${err.message}. Allow it in the repository: Settings → Repository → Pull Requests, tick "Enable Mark PR as manually merged" (allow_manual_merge).`;
  if (err.status === 409)
    return `${err.message} (the forge did not take the merge commit: a version that binds neither spelling of its field).`;
  return err.message;
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
