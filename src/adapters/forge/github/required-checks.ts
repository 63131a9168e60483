/**
 * The checks a branch requires and how a commit stands against them: branch protection's and
 * rulesets' required checks (contract §4: repo_provider_branch_protection), a commit's check runs as
 * statuses, and the direct merge facts (asked only under `directMergeMode = always`): whether a PR's
 * head is built on its base's tip (compare: `ahead`) and the base's required checks passed on it.
 */
import { allPages, hasStatus, type RepoApi } from './client.js';
import { getBranchSha } from './branches.js';

type CheckState = 'pending' | 'success' | 'failure' | 'cancelled';

/** A check run as a commit status. */
export interface CheckRunStatus {
  context: string;
  state: CheckState;
  url?: string;
}

/** Branch protection's and rulesets' required checks of `branch`; none without protection. */
export async function requiredStatuses({ api, loc }: RepoApi, branch: string): Promise<string[]> {
  const found = new Set<string>();
  try {
    const { data } = await api.request('GET /repos/{owner}/{repo}/branches/{branch}', { ...loc, branch });
    const checks = data.protection?.required_status_checks;
    for (const c of checks?.checks ?? []) found.add(c.context);
    for (const c of checks?.contexts ?? []) found.add(c);
  } catch (err) {
    if (!hasStatus(err, 404)) throw err;
  }
  try {
    const rules = await allPages(
      api,
      api.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...loc, branch, per_page: 100 }),
      (data) => data,
    );
    for (const rule of rules as { type: string; parameters?: { required_status_checks?: { context: string }[] } }[]) {
      if (rule.type === 'required_status_checks')
        for (const c of rule.parameters?.required_status_checks ?? []) found.add(c.context);
    }
  } catch (err) {
    if (!hasStatus(err, 403, 404)) throw err;
  }
  return [...found];
}

/** The check runs GitHub has for a commit, as statuses (a check suite finished: catch up on missed check_run deliveries). */
export async function checkRunStatuses({ api, loc }: RepoApi, sha: string): Promise<CheckRunStatus[]> {
  const runs = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...loc, ref: sha, per_page: 100 }),
    (data) => data.check_runs,
  );
  return runs.map((r) => ({
    context: r.name,
    state: checkRunState(r.status, r.conclusion),
    ...(r.html_url ? { url: r.html_url } : {}),
  }));
}

/** A check run as a status: completed `cancelled` is a cancellation (tested again), not a failure. */
export function checkRunState(status: string | null | undefined, conclusion: string | null | undefined): CheckState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'cancelled') return 'cancelled';
  return conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped' ? 'success' : 'failure';
}

export async function directMergeFacts(
  gh: RepoApi,
  pr: { headSha: string; baseBranch: string },
): Promise<{ baseSha?: string; checksPassed: boolean }> {
  const { api, loc } = gh;
  const tip = await getBranchSha(gh, pr.baseBranch);
  if (tip === null) return { checksPassed: false };
  const { data: comparison } = await api.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
    ...loc,
    basehead: `${tip}...${pr.headSha}`,
  });
  const required = await requiredStatuses(gh, pr.baseBranch);
  let checksPassed = true;
  if (required.length > 0) {
    const statuses = await allPages(
      api,
      api.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...loc, ref: pr.headSha, per_page: 100 }),
      (data) => data.statuses,
    );
    const states = new Map<string, string>(statuses.map((s) => [s.context, s.state]));
    for (const c of await checkRunStatuses(gh, pr.headSha)) states.set(c.context, c.state);
    checksPassed = required.every((name) => states.get(name) === 'success');
  }
  // `ahead`: the head contains the tip and adds to it, so merging it is a fast-forward.
  return { ...(comparison.status === 'ahead' ? { baseSha: tip } : {}), checksPassed };
}
