/**
 * MRs as the queue reads them: target, head (`sha`), title, author, labels. A draft (the `draft`
 * field, or a `Draft:`, `[Draft]`, `(Draft)` title) waits, saying so; `detailed_merge_status` says
 * what else holds it: a conflict waits as a conflict, GitLab's other merge checks (discussions not
 * resolved, not approved, blocked by another MR …) as blocked with the check in words, and a status
 * GitLab is still computing (`checking`, `unchecked`, `preparing`, `approvals_syncing`) as in progress,
 * read again at the next poll, never taken for a conflict. What greenline itself settles (the
 * pipeline, a rebase) does not hold an MR: the test run decides. Closed MRs do not exist for the
 * queue; merged ones show as merged.
 */
import type { PrInfo, Unmergeable } from '../../engine/types.js';
import type { RepoBinding } from '../port.js';
import type { GitlabMr, GitlabProjects } from './projects.js';

const DRAFT_TITLE = /^\s*(\[draft\]|\(draft\)|draft:)/i;

/** What GitLab is still computing: asked again, never a verdict. */
const TRANSIENT = new Set(['checking', 'unchecked', 'preparing', 'approvals_syncing']);

/** What greenline's own test run and merge settle, so that it holds nothing. */
const SETTLED_BY_THE_QUEUE = new Set(['mergeable', 'ci_must_pass', 'ci_still_running', 'need_rebase']);

/** GitLab's other merge checks, in words. */
const BLOCKED: Record<string, string> = {
  discussions_not_resolved: 'GitLab requires every discussion of the merge request to be resolved',
  not_approved: 'the merge request is not approved as GitLab requires',
  requested_changes: 'a reviewer requested changes',
  merge_request_blocked: 'the merge request is blocked by another merge request',
  merge_time: 'the merge request may not be merged before its "merge after" time',
  status_checks_must_pass: "GitLab's external status checks have not passed",
  security_policy_violations: 'a security policy of the project blocks it',
  jira_association_missing: 'the title or description must name a Jira issue',
  commits_status: 'the source branch must exist and hold commits',
  locked_paths: 'it changes paths locked in GitLab',
  locked_lfs_files: 'it changes LFS files locked in GitLab',
  title_regex: "its title does not match the project's required pattern",
  not_open: 'the merge request is not open',
};

export async function getPullRequest(projects: GitlabProjects, repo: RepoBinding, iid: number): Promise<PrInfo | null> {
  if (!Number.isSafeInteger(iid) || iid < 1) return null;
  const mr = await projects.mr(repo, iid);
  if (mr?.state !== 'opened') return null;
  const status = mr.detailed_merge_status ?? 'mergeable';
  const held = holdOf(mr, status);
  return {
    number: mr.iid,
    headSha: mr.sha,
    baseBranch: mr.target_branch,
    headBranch: mr.source_branch,
    title: mr.title,
    author: mr.author?.username ?? '',
    mergeability: held === 'in_progress' ? 'in_progress' : held ? 'not_mergeable' : 'mergeable',
    ...(held && held !== 'in_progress' ? { unmergeable: held } : {}),
    labels: mr.labels ?? [],
  };
}

function holdOf(mr: GitlabMr, status: string): Unmergeable | 'in_progress' | null {
  if (mr.draft || DRAFT_TITLE.test(mr.title) || status === 'draft_status') return { cause: 'draft' };
  if (status === 'conflict' || mr.has_conflicts) return { cause: 'conflict' };
  if (TRANSIENT.has(status)) return 'in_progress';
  if (SETTLED_BY_THE_QUEUE.has(status)) return null;
  return {
    cause: 'blocked',
    detail: `${BLOCKED[status] ?? `GitLab says ${status.replaceAll('_', ' ')}`} (detailed_merge_status ${status})`,
  };
}

export async function wasMerged(projects: GitlabProjects, repo: RepoBinding, iid: number): Promise<boolean> {
  return (await projects.mr(repo, iid))?.state === 'merged';
}
