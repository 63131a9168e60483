/**
 * CI results and what the target requires of them. Results are commit statuses (Gitea and Forgejo
 * Actions, Woodpecker, Drone, Jenkins all report them), read from the combined status page by page;
 * `warning` counts as a failure (the check did not pass). Required statuses are those of the target
 * branch's protection rule when it enables status checks, read from the branch API
 * (`GET …/branches/{branch}`): a user with Write may read it, while the protection rules themselves
 * (`…/branch_protections`) are for repository admins only.
 */
import type { CiStatus, RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GiteaRepos } from './repos.js';
import { ciStateOf } from './webhook-events.js';

interface GiteaStatus {
  context: string;
  status: string;
  target_url?: string | null;
  description?: string | null;
  updated_at?: string | null;
}

/** A branch as the branch API shows it to the token's user: the rule that protects it, as far as it concerns greenline. */
export interface GiteaBranchRule {
  /** Whether a protection rule covers the branch, and its name (a branch or a glob). */
  protected: boolean;
  rule: string;
  /** The status contexts the rule requires (none when it does not enable status checks). */
  requiredContexts: string[];
  /** Whether the token's user may push to the branch (the rule's push allowlist). */
  userCanPush: boolean;
}

/** The branch's protection as the branch API tells it; null when there is no such branch. */
export async function branchRule(
  repos: GiteaRepos,
  repo: RepoBinding,
  branch: string,
): Promise<GiteaBranchRule | null> {
  let data: {
    protected?: boolean;
    effective_branch_protection_name?: string;
    enable_status_check?: boolean;
    status_check_contexts?: string[] | null;
    user_can_push?: boolean;
  };
  try {
    data = await repos.client(repo).request('GET', repos.path(repo, `/branches/${encodeURIComponent(branch)}`));
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
  return {
    protected: data.protected === true,
    rule: data.effective_branch_protection_name || branch,
    requiredContexts: data.enable_status_check ? [...(data.status_check_contexts ?? [])] : [],
    userCanPush: data.user_can_push !== false,
  };
}

/** The status contexts branch protection requires on `branch` (when its rule enables status checks). */
export async function requiredStatuses(repos: GiteaRepos, repo: RepoBinding, branch: string): Promise<string[]> {
  return (await branchRule(repos, repo, branch))?.requiredContexts ?? [];
}

/** The latest status of each context of the commit (the combined status, every page). */
export async function commitStatuses(repos: GiteaRepos, repo: RepoBinding, sha: string): Promise<CiStatus[]> {
  const client = repos.client(repo);
  const statuses: GiteaStatus[] = [];
  for (let page = 1; page < 1000; page++) {
    const combined = await client.request<{ statuses?: GiteaStatus[] | null; total_count?: number }>(
      'GET',
      repos.path(repo, `/commits/${sha}/status`),
      undefined,
      { page, limit: 50 },
    );
    const got = combined.statuses ?? [];
    statuses.push(...got);
    if (got.length === 0 || statuses.length >= (combined.total_count ?? 0)) break;
  }
  return statuses.map((s) => ({
    context: s.context,
    state: ciStateOf(s.status) ?? 'pending',
    ...(s.target_url ? { url: s.target_url } : {}),
    ...(s.description ? { description: s.description } : {}),
    ...(s.updated_at ? { at: Date.parse(s.updated_at) } : {}),
  }));
}
