/**
 * The repository itself, for `repo connect`: its spelling, default branch, the token's permission, the
 * settings recording a merge needs, and the default branch's protection as a Write user sees it.
 */
import type { ForgeRepository, RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GiteaRepos } from './repos.js';
import { branchRule, type GiteaBranchRule } from './required-checks.js';

/** What `repo connect` tells of a repository beyond its name (repositoryFacts). */
export interface GiteaRepositoryFacts extends ForgeRepository {
  /** Whether the token may push to the repository (write permission or more). */
  canPush: boolean;
  /**
   * "Allow manual merge" (`allow_manual_merge`), which recording a PR merged needs; null when the
   * forge does not show it (Forgejo's API leaves it out).
   */
  allowManualMerge: boolean | null;
  /** "Autodetect manual merge": the forge itself marks a PR merged once its head is on the base. */
  autodetectManualMerge: boolean | null;
  /** The default branch's protection as the token's user sees it; null when the branch does not exist. */
  defaultBranchRule: GiteaBranchRule | null;
}

interface GiteaRepositoryJson {
  full_name: string;
  default_branch: string;
  permissions?: { push?: boolean; admin?: boolean };
  allow_manual_merge?: boolean;
  autodetect_manual_merge?: boolean;
}

/** The repository as the token sees it; null when it is not visible. */
export async function repositoryFacts(repos: GiteaRepos, repo: RepoBinding): Promise<GiteaRepositoryFacts | null> {
  let data: GiteaRepositoryJson;
  try {
    data = await repos.client(repo).request('GET', repos.path(repo));
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
  const [owner = repo.repo.owner, name = repo.repo.name] = data.full_name.split('/');
  return {
    owner,
    name,
    defaultBranch: data.default_branch,
    canPush: Boolean(data.permissions?.push || data.permissions?.admin),
    allowManualMerge: data.allow_manual_merge ?? null,
    autodetectManualMerge: data.autodetect_manual_merge ?? null,
    defaultBranchRule: await branchRule(repos, { ...repo, repo: { ...repo.repo, owner, name } }, data.default_branch),
  };
}
