/** The repository itself, for `repo connect`: its spelling, default branch, push permission and protection rules. */
import type { ForgeRepository, RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GiteaRepos } from './repos.js';
import { protections } from './required-checks.js';

/** What `repo connect` tells of a repository beyond its name (repositoryFacts). */
export interface GiteaRepositoryFacts extends ForgeRepository {
  /** Whether the token may push to the repository (write permission or more). */
  canPush: boolean;
  /** Branch protection rules: the branch (glob) each protects and the status contexts it requires. */
  protections: { rule: string; requiredContexts: string[] }[];
}

/** The repository as the token sees it; null when it is not visible. */
export async function repositoryFacts(repos: GiteaRepos, repo: RepoBinding): Promise<GiteaRepositoryFacts | null> {
  let data: { full_name: string; default_branch: string; permissions?: { push?: boolean; admin?: boolean } };
  try {
    data = await repos.client(repo).request('GET', repos.path(repo));
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
  const [owner = repo.repo.owner, name = repo.repo.name] = data.full_name.split('/');
  const rules = (await protections(repos, repo)).map((p) => ({
    rule: p.rule_name || p.branch_name || '',
    requiredContexts: p.enable_status_check ? [...(p.status_check_contexts ?? [])] : [],
  }));
  return {
    owner,
    name,
    defaultBranch: data.default_branch,
    canPush: Boolean(data.permissions?.push || data.permissions?.admin),
    protections: rules,
  };
}
