/**
 * CI results and what the target requires of them. Results are commit statuses (Gitea and Forgejo
 * Actions, Woodpecker, Drone, Jenkins all report them), read from the combined status page by page;
 * `warning` counts as a failure (the check did not pass). Required statuses are branch protection's
 * `status_check_contexts` when the rule enables status checks.
 */
import type { CiStatus, RepoBinding } from '../port.js';
import type { GiteaRepos } from './repos.js';
import { ciStateOf } from './webhook-events.js';

interface GiteaStatus {
  context: string;
  status: string;
  target_url?: string | null;
  description?: string | null;
}

export interface GiteaProtection {
  rule_name?: string;
  branch_name?: string;
  enable_status_check?: boolean;
  status_check_contexts?: string[] | null;
}

/** The repository's branch protection rules. */
export function protections(repos: GiteaRepos, repo: RepoBinding): Promise<GiteaProtection[]> {
  return repos.client(repo).request<GiteaProtection[]>('GET', repos.path(repo, '/branch_protections'));
}

/** The status contexts branch protection requires on `branch` (when its rule enables status checks). */
export async function requiredStatuses(repos: GiteaRepos, repo: RepoBinding, branch: string): Promise<string[]> {
  const rule = ruleFor(await protections(repos, repo), branch);
  return rule?.enable_status_check ? [...(rule.status_check_contexts ?? [])] : [];
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
  }));
}

/**
 * The protection rule of `branch`: a rule naming it exactly, else the first whose glob matches
 * (`*` within a path segment, `**` across), as the forges choose.
 */
function ruleFor(rules: GiteaProtection[], branch: string): GiteaProtection | null {
  const nameOf = (r: GiteaProtection) => r.rule_name || r.branch_name || '';
  return rules.find((r) => nameOf(r) === branch) ?? rules.find((r) => globMatches(nameOf(r), branch)) ?? null;
}

function globMatches(glob: string, name: string): boolean {
  const re = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((lit) => lit.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re}$`).test(name);
}
