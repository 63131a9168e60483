/**
 * Who may command the queue from a PR comment: people with at least the configured permission on the
 * repository (`githubCommandPermission`: write, maintain or admin). The comment's `author_association`
 * decides where it is conclusive (OWNER: the owner of a user-owned repository, its admin; NONE,
 * FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, CONTRIBUTOR, MANNEQUIN: no write access); otherwise (MEMBER,
 * COLLABORATOR, or none given) GitHub is asked: `GET /repos/{owner}/{repo}/collaborators/{username}/permission`.
 */
import { hasStatus, type RepoApi } from './client.js';

export const COMMAND_PERMISSIONS = ['write', 'maintain', 'admin'] as const;
export type CommandPermission = (typeof COMMAND_PERMISSIONS)[number];

/** Repository roles from the least to the most. */
const RANK = ['none', 'read', 'triage', 'write', 'maintain', 'admin'] as const;
type Role = (typeof RANK)[number];
const rank = (role: Role): number => RANK.indexOf(role);
const isRole = (s: unknown): s is Role => typeof s === 'string' && (RANK as readonly string[]).includes(s);

/** What an author_association tells of the author's role, when it tells enough. */
function roleOfAssociation(association: string | undefined): Role | null {
  switch (association) {
    case 'OWNER':
      return 'admin';
    case 'NONE':
    case 'FIRST_TIMER':
    case 'FIRST_TIME_CONTRIBUTOR':
    case 'CONTRIBUTOR':
    case 'MANNEQUIN':
      return 'read';
    default:
      return null;
  }
}

/**
 * The author's role as GitHub reports it: `role_name` when it is a base role (it tells maintain from
 * write), else `permission` (the base role a custom role builds on, maintain reported as write).
 * Someone GitHub does not know (404) has none.
 */
async function roleOfUser({ api, loc }: RepoApi, username: string): Promise<Role> {
  try {
    const { data } = await api.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', {
      ...loc,
      username,
    });
    if (isRole(data.role_name)) return data.role_name;
    return isRole(data.permission) ? data.permission : 'none';
  } catch (err) {
    if (hasStatus(err, 404)) return 'none';
    throw err;
  }
}

/** Whether the author may command the queue; when not, why, in words. */
export async function mayCommand(
  gh: RepoApi,
  author: { login?: string; standing?: string },
  minimum: CommandPermission,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const role = roleOfAssociation(author.standing) ?? (author.login ? await roleOfUser(gh, author.login) : 'none');
  if (rank(role) >= rank(minimum)) return { ok: true };
  const repo = `${gh.loc.owner}/${gh.loc.repo}`;
  return {
    ok: false,
    reason: `only people with ${minimum} access to ${repo} can command the merge queue; ask a maintainer`,
  };
}
