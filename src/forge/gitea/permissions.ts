/**
 * Who may command the queue from a PR comment: people with write access to the repository or more,
 * which is who the forge lets be assigned (`GET …/assignees`: every user whose access is Write or
 * more, directly or through a team, and a user owner). A user with Write may read that list, while
 * another user's permission (`…/collaborators/{user}/permission`) is for repository admins only.
 * Others are answered why.
 */
import type { RepoBinding } from '../port.js';
import type { GiteaRepos } from './repos.js';

export async function mayCommand(
  repos: GiteaRepos,
  repo: RepoBinding,
  author: { login?: string; standing?: string },
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const login = author.login?.toLowerCase();
  if (login) {
    const writers = await repos.client(repo).request<{ login: string }[]>('GET', repos.path(repo, '/assignees'));
    if (writers.some((u) => u.login.toLowerCase() === login)) return { ok: true };
  }
  return {
    ok: false,
    reason: `only people with write access to ${repo.repo.owner}/${repo.repo.name} can command the merge queue (${author.login ?? 'the author'} has no write access); ask a maintainer`,
  };
}
