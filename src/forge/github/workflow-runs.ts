/**
 * The runs of a commit's checks: running failed ones again (`ciRetries`, a cancelled check), and a
 * fork PR's workflow run vouching for its impacted-target upload.
 */
import type { RepoBinding } from '../port.js';
import { allPages, hasStatus, type GitHubClients, type RepoApi } from './client.js';

/** Conclusions of a workflow run or check suite worth running again. */
const RERUNNABLE = new Set(['failure', 'cancelled', 'timed_out']);

/**
 * Runs the failed checks of a test commit again: GitHub Actions workflow runs of the commit that
 * failed, were cancelled or timed out re-run their failed jobs (`rerun-failed-jobs`); the check suites
 * of other GitHub Apps that ended so are re-requested (their app is sent a `check_suite` `rerequested`
 * event). Checks reported as commit statuses (the statuses API) cannot be re-run by GitHub: the CI
 * behind them hears `test_run.retry_requested`.
 *
 * A job fails while the rest of its workflow run goes on, and GitHub refuses to re-run a workflow run
 * that has not completed (403): the ids of the workflow runs still running are returned as `waiting`,
 * and the caller asks again for `only` those once they completed (`workflow_run`/`check_suite`
 * completed). With `only`, other workflow runs and the other Apps' suites are left alone (they were
 * dealt with the first time).
 */
export async function rerunChecks({ api, loc }: RepoApi, sha: string, only?: string[]): Promise<{ waiting: string[] }> {
  const runs = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/actions/runs', { ...loc, head_sha: sha, per_page: 100 }),
    (data) => data.workflow_runs,
  );
  const waiting: string[] = [];
  for (const run of runs) {
    if (only && !only.includes(String(run.id))) continue;
    if (run.status !== 'completed') waiting.push(String(run.id));
    else if (RERUNNABLE.has(run.conclusion ?? ''))
      await api.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
        ...loc,
        run_id: Number(run.id),
      });
  }
  if (only) return { waiting };
  const suites = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/commits/{ref}/check-suites', { ...loc, ref: sha, per_page: 100 }),
    (data) => data.check_suites,
  );
  for (const suite of suites) {
    if (suite.app?.slug === 'github-actions' || suite.status !== 'completed') continue;
    if (RERUNNABLE.has(suite.conclusion ?? ''))
      await api.request('POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest', {
        ...loc,
        check_suite_id: Number(suite.id),
      });
  }
  return { waiting };
}

/**
 * An impacted-target upload from a fork PR's CI vouched for by its workflow run (contract §2.6,
 * §9): the run exists in this repository, was started by a pull request event from another
 * repository (a fork), has not completed, and runs on `headSha`.
 */
export async function verifyForkRun(
  clients: GitHubClients,
  repo: RepoBinding,
  runId: string,
  headSha: string,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (!/^\d+$/.test(runId)) return { ok: false, reason: `${JSON.stringify(runId)} is not a workflow run id` };
  const { api, loc } = await clients.repoApi(repo);
  const own = `${loc.owner}/${loc.repo}`;
  let run: { status: string | null; head_sha: string; event: string; head_repository?: { full_name: string } | null };
  try {
    ({ data: run } = await api.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
      ...loc,
      run_id: Number(runId),
    }));
  } catch (err) {
    if (hasStatus(err, 404)) return { ok: false, reason: `no workflow run ${runId} in ${own}` };
    throw err;
  }
  if (
    !run.event.startsWith('pull_request') ||
    !run.head_repository ||
    run.head_repository.full_name.toLowerCase() === own.toLowerCase()
  ) {
    return { ok: false, reason: `workflow run ${runId} is not for a pull request from a fork` };
  }
  if (run.status === 'completed') return { ok: false, reason: `workflow run ${runId} has completed` };
  if (run.head_sha.toLowerCase() !== headSha.toLowerCase()) {
    return { ok: false, reason: `workflow run ${runId} runs on ${run.head_sha}, not on ${headSha}` };
  }
  return { ok: true };
}
