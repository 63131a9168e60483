/**
 * The project itself, for `repo connect`: its spelling (path with namespace), default branch, merge
 * method, squash option, "Pipelines must succeed", protected branches, and whether greenline's user
 * may push to the default branch (its role against the branch's "Allowed to push"), or to any branch.
 */
import type { ForgeRepository, RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GitlabProjects } from './projects.js';

export interface GitlabProjectFacts extends ForgeRepository {
  mergeMethod: string;
  squashOption: string;
  pipelineMustSucceed: boolean;
  protections: { name: string; push: number[]; merge: number[] }[];
  /** The token user's role (access level; 0 = none known). */
  accessLevel: number;
  /** Whether that role may push to the default branch. */
  canPush: boolean;
}

interface Project {
  path_with_namespace: string;
  default_branch: string;
  merge_method?: string;
  squash_option?: string;
  only_allow_merge_if_pipeline_succeeds?: boolean;
  permissions?: {
    project_access?: { access_level?: number | string } | null;
    group_access?: { access_level?: number | string } | null;
  } | null;
}

interface Protected {
  name: string;
  push_access_levels?: { access_level?: number | null }[];
  merge_access_levels?: { access_level?: number | null }[];
}

export async function projectFacts(projects: GitlabProjects, repo: RepoBinding): Promise<GitlabProjectFacts | null> {
  const client = projects.client(repo);
  let p: Project;
  try {
    p = await client.request('GET', projects.path(repo));
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
  const parts = p.path_with_namespace.split('/');
  const levels = (xs?: { access_level?: number | null }[]) => (xs ?? []).map((x) => Number(x.access_level ?? 0));
  const protections = (await client.all<Protected>(projects.path(repo, '/protected_branches'))).map((b) => ({
    name: b.name,
    push: levels(b.push_access_levels),
    merge: levels(b.merge_access_levels),
  }));
  const accessLevel = Math.max(
    Number(p.permissions?.project_access?.access_level ?? 0),
    Number(p.permissions?.group_access?.access_level ?? 0),
  );
  return {
    owner: parts.slice(0, -1).join('/'),
    name: parts[parts.length - 1]!,
    defaultBranch: p.default_branch,
    mergeMethod: p.merge_method ?? 'merge',
    squashOption: p.squash_option ?? 'default_off',
    pipelineMustSucceed: p.only_allow_merge_if_pipeline_succeeds === true,
    protections,
    accessLevel,
    canPush: mayPush({ protections, accessLevel }, p.default_branch),
  };
}

/**
 * Whether a user of `accessLevel` may push to `branch`: a protected branch rule matching it (its
 * name, or a wildcard pattern such as `release/*`) must allow a role at most the user's; an
 * unprotected branch takes Developer (30) or more.
 */
export function mayPush(facts: Pick<GitlabProjectFacts, 'protections' | 'accessLevel'>, branch: string): boolean {
  return allowed(facts, branch, 'push');
}

/** Whether a user of `accessLevel` may merge into `branch` (its protected branch rules' "Allowed to merge"). */
export function mayMerge(facts: Pick<GitlabProjectFacts, 'protections' | 'accessLevel'>, branch: string): boolean {
  return allowed(facts, branch, 'merge');
}

function allowed(
  facts: Pick<GitlabProjectFacts, 'protections' | 'accessLevel'>,
  branch: string,
  what: 'push' | 'merge',
): boolean {
  const rules = facts.protections.filter((b) => b.name === branch || wildcard(b.name).test(branch));
  if (rules.length === 0) return facts.accessLevel >= 30;
  return rules.some((b) => b[what].some((l) => l > 0 && facts.accessLevel >= l));
}

const wildcard = (name: string): RegExp =>
  new RegExp(
    `^${name
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
