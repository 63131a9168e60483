/**
 * Who may command the queue from an MR note: project members (direct, inherited or invited) whose
 * role is at least gitlabCommandRole (Developer by default); others are answered why.
 */
import type { RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GitlabProjects } from './projects.js';
import { ACCESS_LEVELS } from './settings.js';

const ROLE_OF: Record<number, string> = {
  10: 'Guest',
  15: 'Planner',
  20: 'Reporter',
  30: 'Developer',
  40: 'Maintainer',
  50: 'Owner',
};

export async function mayCommand(
  projects: GitlabProjects,
  repo: RepoBinding,
  role: keyof typeof ACCESS_LEVELS,
  author: { login?: string },
): Promise<{ ok: true } | { ok: false; reason: string }> {
  let level = 0;
  if (author.login) {
    const client = projects.client(repo);
    const users = await client.request<{ id: number; username: string }[]>('GET', '/users', undefined, {
      username: author.login,
    });
    const user = users.find((u) => u.username.toLowerCase() === author.login!.toLowerCase());
    if (user)
      try {
        const member = await client.request<{ access_level: number | string }>(
          'GET',
          projects.path(repo, `/members/all/${user.id}`),
        );
        level = Number(member.access_level) || 0;
      } catch (err) {
        if (!hasStatus(err, 404)) throw err;
      }
  }
  if (level >= ACCESS_LEVELS[role]) return { ok: true };
  const has = level > 0 ? `is ${ROLE_OF[level] ?? `at access level ${level}`}` : 'is not a member';
  return {
    ok: false,
    reason: `only people with write access to ${repo.repo.owner}/${repo.repo.name} (at least the ${role[0]!.toUpperCase()}${role.slice(1)} role) can command the merge queue (${author.login ?? 'the author'} ${has}); ask a maintainer`,
  };
}
