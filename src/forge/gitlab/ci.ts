/**
 * CI results and what the target requires of them. GitLab CI's jobs and external CI's statuses are
 * both commit statuses (an external status joins a pipeline of its sha and ref), each read by its
 * name; every pipeline of the commit is one more status, `gitlab/pipeline`, its overall state. The
 * statuses of a commit are read per ref (GitLab answers the default branch's when no ref is given):
 * the refs of the commit's pipelines. Required: `gitlab/pipeline` when the project's "Pipelines must
 * succeed" is on, else nothing of GitLab's own (the repository's required statuses then decide).
 * States: `failed` is a failure, `canceled`/`canceling` cancelled (tested again, not failed),
 * `skipped` skipped, `manual` and everything not finished pending; a job allowed to fail never fails.
 * A retry retries the failed and canceled jobs of the commit's pipelines (new jobs, told apart from
 * the old by their ids; the latest of each name decides).
 */
import type { CiStatus, RepoBinding } from '../port.js';
import type { GitlabProjects } from './projects.js';

/** The name of the status standing for a commit's pipeline. */
export const PIPELINE_CONTEXT = 'gitlab/pipeline';

interface Pipeline {
  id: number;
  ref: string;
  sha: string;
  status: string;
  web_url?: string;
}

interface Status {
  name: string;
  status: string;
  allow_failure?: boolean | null;
  target_url?: string | null;
  description?: string | null;
}

/** A GitLab pipeline, job or commit status state as a CI state; null for a state GitLab does not define. */
export function ciStateOf(state: string | undefined): CiStatus['state'] | null {
  switch (state) {
    case 'success':
      return 'success';
    case 'failed':
      return 'failure';
    case 'canceled':
    case 'canceling':
      return 'cancelled';
    case 'skipped':
      return 'skipped';
    case 'created':
    case 'waiting_for_resource':
    case 'preparing':
    case 'waiting_for_callback':
    case 'pending':
    case 'running':
    case 'manual':
    case 'scheduled':
      return 'pending';
    default:
      return null;
  }
}

function pipelinesOf(projects: GitlabProjects, repo: RepoBinding, sha: string): Promise<Pipeline[]> {
  return projects.client(repo).all<Pipeline>(projects.path(repo, '/pipelines'), { sha });
}

export async function commitStatuses(projects: GitlabProjects, repo: RepoBinding, sha: string): Promise<CiStatus[]> {
  const pipelines = await pipelinesOf(projects, repo, sha);
  const out: CiStatus[] = [];
  const latest = pipelines[0];
  if (latest)
    out.push({
      context: PIPELINE_CONTEXT,
      state: ciStateOf(latest.status) ?? 'pending',
      ...(latest.web_url ? { url: latest.web_url } : {}),
    });
  for (const ref of new Set(pipelines.map((p) => p.ref))) {
    const statuses = await projects
      .client(repo)
      .all<Status>(projects.path(repo, `/repository/commits/${sha}/statuses`), { ref });
    for (const s of statuses) {
      const state = s.allow_failure && s.status === 'failed' ? 'success' : (ciStateOf(s.status) ?? 'pending');
      out.push({
        context: s.name,
        state,
        ...(s.target_url ? { url: s.target_url } : {}),
        ...(s.description ? { description: s.description } : {}),
      });
    }
  }
  return out;
}

export async function requiredStatuses(projects: GitlabProjects, repo: RepoBinding): Promise<string[]> {
  const project = await projects
    .client(repo)
    .request<{ only_allow_merge_if_pipeline_succeeds?: boolean }>('GET', projects.path(repo));
  return project.only_allow_merge_if_pipeline_succeeds ? [PIPELINE_CONTEXT] : [];
}

/** Retries the failed and canceled jobs of every pipeline of the commit. */
export async function rerunChecks(
  projects: GitlabProjects,
  repo: RepoBinding,
  commit: { sha: string },
): Promise<{ waiting: string[] }> {
  for (const p of await pipelinesOf(projects, repo, commit.sha))
    if (p.status === 'failed' || p.status === 'canceled')
      await projects.client(repo).request('POST', projects.path(repo, `/pipelines/${p.id}/retry`));
  return { waiting: [] };
}
