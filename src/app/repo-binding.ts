/** A repository row as the adapters see it, and the repository's default required statuses. */
import type { RepoRef } from '../engine/types.js';
import type { ForgePort, RepoBinding } from '../forge/port.js';
import type { RepoRow } from '../store/database.js';

/** The status context the built-in CI runner reports (see the command CI adapter). */
export const BUILT_IN_CI_CONTEXT = 'greenline/ci';

export function bindingOf(row: RepoRow): RepoBinding {
  return {
    id: row.id,
    org: row.org_id,
    repo: { host: row.host, owner: row.owner, name: row.name },
    forge: row.forge,
    remote: row.remote,
    prRefPattern: row.pr_ref_pattern,
    ciCommand: row.ci_command,
    testBranchPrefix: row.test_branch_prefix,
    forgeData: forgeDataOf(row),
  };
}

/**
 * A binding's forge-private data (RepoBinding.forgeData) as the store keeps it. Its one member so far,
 * the github forge's App installation (`installationId`), has had a column of its own since migration
 * 005 (`github_installation_id`): mapped here, so that only the github forge reads it.
 */
function forgeDataOf(row: Pick<RepoRow, 'github_installation_id'>): RepoBinding['forgeData'] {
  return row.github_installation_id == null ? null : { installationId: Number(row.github_installation_id) };
}

/** The columns that keep `data` (forgeDataOf read back); throws on data the store has no place for. */
export function forgeDataColumns(data: RepoBinding['forgeData']): Pick<RepoRow, 'github_installation_id'> {
  const { installationId, ...rest } = data ?? {};
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`No place to store the forge data ${unknown.join(', ')}`);
  if (installationId !== undefined && typeof installationId !== 'number') {
    throw new Error(`The forge data installationId is a number, not ${JSON.stringify(installationId)}`);
  }
  return installationId === undefined ? {} : { github_installation_id: installationId };
}

export const repoRefOf = (row: Pick<RepoRow, 'host' | 'owner' | 'name'>): RepoRef => ({
  host: row.host,
  owner: row.owner,
  name: row.name,
});
export const repoSlug = (r: RepoRef): string => `${r.host}/${r.owner}/${r.name}`;

/**
 * The checks a test run needs, in the order of contract §4: the queue's override, else the repo's
 * configured list, else the built-in runner's context when the repo has a CI command. Null = none
 * found (the run fails with START_TEST_RUN_NO_REQUIRED_STATUSES). An empty override is an answer,
 * not a gap: it requires no check, and the run passes once its test commit exists.
 */
export function resolveRequiredStatuses(
  override: string[] | null,
  repo: RepoRow,
): { statuses: string[]; source: 'merge_instance' | 'trunk_config' } | null {
  if (override !== null) return { statuses: override, source: 'merge_instance' };
  const configured = repo.required_statuses ? (JSON.parse(repo.required_statuses) as string[]) : [];
  if (configured.length > 0) return { statuses: configured, source: 'trunk_config' };
  if (repo.ci_command) return { statuses: [BUILT_IN_CI_CONTEXT], source: 'trunk_config' };
  return null;
}

/** The target branch's required checks by the forge's own rules (GitHub branch protection, rulesets); null = none. */
export async function protectionStatuses(
  forge: ForgePort,
  binding: RepoBinding,
  branch: string,
): Promise<{ statuses: string[]; source: 'repo_provider_branch_protection' } | null> {
  const statuses = (await forge.requiredStatuses?.(binding, branch)) ?? [];
  return statuses.length > 0 ? { statuses, source: 'repo_provider_branch_protection' } : null;
}
