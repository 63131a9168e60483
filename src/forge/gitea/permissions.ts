/**
 * Who may command the queue from a PR comment: people with write permission or more on the
 * repository (the collaborator permission endpoint); others are answered why.
 */
import type { RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GiteaRepos } from './repos.js';

/** Repository permissions that let a PR comment command the queue. */
const MAY_COMMAND = new Set(['write', 'admin', 'owner']);

export async function mayCommand(
  repos: GiteaRepos,
  repo: RepoBinding,
  author: { login?: string; standing?: string },
): Promise<{ ok: true } | { ok: false; reason: string }> {
  let permission = 'none';
  if (author.login) {
    try {
      const data = await repos
        .client(repo)
        .request<{ permission?: string }>(
          'GET',
          repos.path(repo, `/collaborators/${encodeURIComponent(author.login)}/permission`),
        );
      permission = data.permission ?? 'none';
    } catch (err) {
      if (!hasStatus(err, 404)) throw err;
    }
  }
  if (MAY_COMMAND.has(permission)) return { ok: true };
  return {
    ok: false,
    reason: `only people with write access to ${repo.repo.owner}/${repo.repo.name} can command the merge queue (${author.login ?? 'the author'} has ${permission}); ask a maintainer`,
  };
}
