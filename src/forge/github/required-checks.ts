/**
 * The checks a branch requires and how a commit stands against them: branch protection's and
 * rulesets' required checks (contract §4: repo_provider_branch_protection) without greenline's own,
 * what else they say about merging (up-to-date branches required, GitHub's merge queue required),
 * whether a blocked PR misses only greenline's own check, a commit's check runs as statuses (with its
 * commit statuses: every check of a test commit, read again), and the
 * direct merge facts (asked only under `directMergeMode = always`): whether a PR's
 * head is built on its base's tip (compare: `ahead`) and the base's required checks passed on it.
 */
import type { CiStatus } from '../port.js';
import { allPages, hasStatus, type RepoApi } from './client.js';
import { getBranchSha } from './branches.js';
import { checkName } from '../presence.js';

type CheckState = 'pending' | 'success' | 'failure' | 'cancelled' | 'skipped';

/** A check run as a commit status. */
export interface CheckRunStatus {
  context: string;
  state: CheckState;
  url?: string;
}

/**
 * What `branch`'s classic protection and rulesets say about merging into it: the checks they
 * require (greenline's own included), whether they require branches to be up to date before merging
 * ("strict": classic `required_status_checks.strict` or a ruleset's
 * `strict_required_status_checks_policy`, which GitHub enforces only with at least one required check)
 * and where that comes from, the ruleset that requires GitHub's own merge queue, if any, and the
 * reviews they require. Read from the branch as any reader sees it and from the rules endpoint
 * (`.../branches/{branch}/protection` needs admin rights).
 */
export interface BranchRules {
  required: string[];
  /** Names the setting that requires up-to-date branches; null when none does. */
  strict: string | null;
  /** Names the ruleset whose `merge_queue` rule requires GitHub's merge queue; null when none does. */
  mergeQueue: string | null;
  /** Approving reviews required (the highest of protection's and rulesets'). */
  approvals: number;
  /** Whether code owners must approve (who they are is not read: such a PR is left to GitHub). */
  codeOwners: boolean;
  /** Names the setting that requires signed commits (classic `required_signatures`, a ruleset's rule); null when none does. */
  signatures: string | null;
}

type Rule = {
  type: string;
  ruleset_source?: string;
  parameters?: {
    required_status_checks?: { context: string }[];
    strict_required_status_checks_policy?: boolean;
    required_approving_review_count?: number;
    require_code_owner_review?: boolean;
  };
};

export async function branchRules({ api, loc }: RepoApi, branch: string): Promise<BranchRules> {
  const found = new Set<string>();
  let strict: string | null = null;
  let mergeQueue: string | null = null;
  let approvals = 0;
  let codeOwners = false;
  let signatures: string | null = null;
  try {
    const { data } = await api.request('GET /repos/{owner}/{repo}/branches/{branch}', { ...loc, branch });
    const checks = data.protection?.required_status_checks;
    for (const c of checks?.checks ?? []) found.add(c.context);
    for (const c of checks?.contexts ?? []) found.add(c);
    if (checks?.strict && found.size > 0) strict = `${branch}'s branch protection`;
    const reviews = data.protection?.required_pull_request_reviews;
    approvals = reviews?.required_approving_review_count ?? data.required_approving_review_count ?? 0;
    codeOwners = reviews?.require_code_owner_reviews === true;
    if (data.protection?.required_signatures?.enabled) signatures = `${branch}'s branch protection`;
  } catch (err) {
    if (!hasStatus(err, 404)) throw err;
  }
  try {
    const rules = await allPages(
      api,
      api.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', { ...loc, branch, per_page: 100 }),
      (data) => data,
    );
    for (const rule of rules as Rule[]) {
      const ruleset = `the ruleset ${JSON.stringify(rule.ruleset_source ?? '?')} on ${branch}`;
      if (rule.type === 'merge_queue') mergeQueue ??= ruleset;
      if (rule.type === 'required_signatures') signatures ??= ruleset;
      if (rule.type === 'pull_request') {
        approvals = Math.max(approvals, rule.parameters?.required_approving_review_count ?? 0);
        codeOwners ||= rule.parameters?.require_code_owner_review === true;
      }
      if (rule.type !== 'required_status_checks') continue;
      const checks = rule.parameters?.required_status_checks ?? [];
      for (const c of checks) found.add(c.context);
      if (rule.parameters?.strict_required_status_checks_policy && checks.length > 0) strict ??= ruleset;
    }
  } catch (err) {
    if (!hasStatus(err, 403, 404)) throw err;
  }
  return { required: [...found], strict, mergeQueue, approvals, codeOwners, signatures };
}

/**
 * Branch protection's and rulesets' required checks of `branch`, without greenline's own check
 * (`greenline (<branch>)`, posted on PR heads only: a test commit never has it); none without
 * protection.
 */
export async function requiredStatuses(gh: RepoApi, branch: string): Promise<string[]> {
  return (await branchRules(gh, branch)).required.filter((c) => c !== checkName(branch));
}

/** Whether `branch` requires greenline's own check (then the queue passes it before merging). */
export async function requiresOwnCheck(gh: RepoApi, branch: string): Promise<boolean> {
  return (await branchRules(gh, branch)).required.includes(checkName(branch));
}

/**
 * Whether a PR GitHub reports `blocked` misses nothing but greenline's own check, which the queue
 * passes itself when it merges the PR. GitHub does not say why a PR is blocked, so this reads the
 * requirements of its base branch: greenline's check is required; every other required check passed
 * on the head (success, or skipped/neutral, as GitHub counts them); the approving reviews required
 * are there (the latest review of each reviewer) and no reviewer's latest review requests changes;
 * code owners' reviews are not required (who they are is not read). Anything else keeps it blocked.
 */
export async function blockedOnlyByOwnCheck(
  gh: RepoApi,
  pr: { number: number; headSha: string; baseBranch: string },
): Promise<boolean> {
  const own = checkName(pr.baseBranch);
  const rules = await branchRules(gh, pr.baseBranch);
  if (!rules.required.includes(own) || rules.codeOwners) return false;
  const others = rules.required.filter((c) => c !== own);
  if (others.length > 0) {
    const states = await headStates(gh, pr.headSha);
    if (!others.every((c) => states.get(c) === 'success' || states.get(c) === 'skipped')) return false;
  }
  if (rules.approvals === 0) return true;
  const { api, loc } = gh;
  const { data: reviews } = await api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
    ...loc,
    pull_number: pr.number,
    per_page: 100,
  });
  const latest = new Map<string, string>();
  for (const r of reviews) {
    if (r.user && (r.state === 'APPROVED' || r.state === 'CHANGES_REQUESTED' || r.state === 'DISMISSED'))
      latest.set(r.user.login, r.state);
  }
  const states = [...latest.values()];
  return !states.includes('CHANGES_REQUESTED') && states.filter((s) => s === 'APPROVED').length >= rules.approvals;
}

/** The state of each check and commit status on a commit (a check run wins over a status of the same name). */
async function headStates(gh: RepoApi, sha: string): Promise<Map<string, string>> {
  return new Map((await commitChecks(gh, sha)).map((c) => [c.context, c.state]));
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

/**
 * Every check GitHub holds for a commit, as statuses: its commit statuses (the combined status) and
 * its check runs, a check run winning over a commit status of the same name.
 */
export async function commitChecks(gh: RepoApi, sha: string): Promise<CiStatus[]> {
  const { api, loc } = gh;
  const statuses = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/commits/{ref}/status', { ...loc, ref: sha, per_page: 100 }),
    (data) => data.statuses,
  );
  const byContext = new Map<string, CiStatus>();
  for (const s of statuses) {
    if (!isCommitState(s.state)) continue;
    byContext.set(s.context, {
      context: s.context,
      state: s.state,
      ...(s.target_url ? { url: s.target_url } : {}),
      ...(s.description ? { description: s.description } : {}),
    });
  }
  for (const c of await checkRunStatuses(gh, sha)) byContext.set(c.context, c);
  return [...byContext.values()];
}

const isCommitState = (s: string): s is 'pending' | 'success' | 'failure' | 'error' =>
  s === 'pending' || s === 'success' || s === 'failure' || s === 'error';

/**
 * A check run as a status: completed `cancelled` is a cancellation (tested again), not a failure;
 * `skipped` and `neutral` ran nothing that could fail: `skipped` (passing beside checks that ran, but
 * a test commit whose required checks were all skipped was not tested, see ci-outcome.ts).
 */
export function checkRunState(status: string | null | undefined, conclusion: string | null | undefined): CheckState {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'cancelled') return 'cancelled';
  if (conclusion === 'skipped' || conclusion === 'neutral') return 'skipped';
  return conclusion === 'success' ? 'success' : 'failure';
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
    const states = await headStates(gh, pr.headSha);
    checksPassed = required.every((name) => states.get(name) === 'success');
  }
  // `ahead`: the head contains the tip and adds to it, so merging it is a fast-forward.
  return { ...(comparison.status === 'ahead' ? { baseSha: tip } : {}), checksPassed };
}
