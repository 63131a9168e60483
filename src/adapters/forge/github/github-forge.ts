/**
 * The github forge (`--forge github`): PRs, branches and merges through GitHub's REST API.
 *
 * - Readiness: a PR's base, mergeability and draft flag come from the pulls API. Draft PRs, PRs with
 *   conflicts and PRs GitHub blocks (branch protection not met) are `not_mergeable`; while GitHub is
 *   still computing mergeability they are `in_progress`. Closed PRs do not exist for the queue.
 * - Test branches: built on a temporary branch (`<prefix>-temp/…`) from the base sha with the merges
 *   API (one merge commit per PR, conflict = START_TEST_RUN_MERGE_CONFLICT), then published as the
 *   run's branch and the temporary one deleted, so CI never sees a half-built branch.
 * - Merging: `merge_commit` fast-forwards the target to the tested commit (update ref, force=false)
 *   when the repository allows it; otherwise, and for `squash` and `rebase`, each PR is merged through
 *   the merge endpoint with the queue's method and its tested head as the `sha` guard.
 * - Presence (onQueueEvent, see presence.ts): check runs or commit statuses, one comment per PR, state
 *   labels, and draft PRs for test branches.
 * - Direct merge facts (directMergeFacts, asked only under `directMergeMode = always`): whether a PR's
 *   head is built on its base's tip (compare: `ahead`) and the base's required checks passed on it.
 */
import type { PrOutlook } from '../../../engine/eta.js';
import type { Logger } from 'pino';
import type {
  Mergeability,
  PrInfo,
  QueueConfig,
  QueueEventPayload,
  RunPr,
  Unmergeable,
} from '../../../engine/types.js';
import type { AdvanceResult, BuildResult, ForgePort, RepoBinding } from '../../../ports.js';
import { failureOf, GitHubClients, hasStatus, type GitHubApi, type GitHubClientOptions } from './client.js';
import { Presence } from './presence.js';

export interface GitHubForgeOptions extends GitHubClientOptions {
  /**
   * Link of the status check's Details and of comments; `{owner}`, `{repo}`, `{branch}` and `{pr}`
   * are replaced. Absent = no link.
   */
  detailsUrl?: string;
}

type MergeMethodName = Parameters<ForgePort['advanceTarget']>[1]['method'];

/** What the pulls API says about a PR (the fields the forge reads). */
export interface GitHubPull {
  number: number;
  state: string;
  merged?: boolean;
  merged_at?: string | null;
  draft?: boolean;
  mergeable?: boolean | null;
  mergeable_state?: string;
  merge_commit_sha?: string | null;
  title: string;
  body?: string | null;
  user: { login: string } | null;
  head: { sha: string; ref: string };
  base: { sha: string; ref: string };
  labels?: { name: string }[];
}

const API_METHOD = { merge_commit: 'merge', squash: 'squash', rebase: 'rebase' } as const;
const short = (sha: string): string => sha.slice(0, 7);

export function mergeabilityOf(pr: GitHubPull): Mergeability {
  if (pr.draft) return 'not_mergeable';
  if (pr.mergeable === false || pr.mergeable_state === 'dirty' || pr.mergeable_state === 'blocked')
    return 'not_mergeable';
  if (pr.mergeable === null || pr.mergeable === undefined || pr.mergeable_state === 'unknown') return 'in_progress';
  return 'mergeable';
}

/** Why mergeabilityOf calls the PR not_mergeable. */
function unmergeableOf(pr: GitHubPull): Unmergeable | undefined {
  if (pr.draft) return { cause: 'draft' };
  if (pr.mergeable === false || pr.mergeable_state === 'dirty') return { cause: 'conflict' };
  if (pr.mergeable_state === 'blocked') return { cause: 'blocked' };
  return undefined;
}

/** The PR body line `merge-commit-title: <title>` (contract §4 mergeMethod), if any. */
export function mergeCommitTitle(body: string | null | undefined): string | null {
  const m = /^merge-commit-title: *(.+?) *$/m.exec(body ?? '');
  return m ? m[1]! : null;
}

/** `<prefix>/rest` → `<prefix>-temp/rest`: where a test branch is built before it is published. */
export function tempBranchOf(repo: RepoBinding, branch: string): string {
  const prefix = `${repo.testBranchPrefix}/`;
  return branch.startsWith(prefix)
    ? `${repo.testBranchPrefix}-temp/${branch.slice(prefix.length)}`
    : `greenline-temp/${branch}`;
}

export class GitHubForge implements ForgePort {
  readonly clients: GitHubClients;
  private readonly logger: Logger;
  private readonly presence: Presence;

  constructor(opts: GitHubForgeOptions) {
    this.clients = new GitHubClients(opts);
    this.logger = opts.logger;
    this.presence = new Presence({
      clients: this.clients,
      logger: opts.logger,
      ...(opts.detailsUrl ? { detailsUrl: opts.detailsUrl } : {}),
    });
  }

  private api(repo: RepoBinding): Promise<GitHubApi> {
    return this.clients.forRepo(repo);
  }

  private loc(repo: RepoBinding): { owner: string; repo: string } {
    return { owner: repo.repo.owner, repo: repo.repo.name };
  }

  /** The pulls API's PR, or null when it does not exist. */
  async pull(repo: RepoBinding, number: number): Promise<GitHubPull | null> {
    const api = await this.api(repo);
    try {
      const { data } = await api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
        ...this.loc(repo),
        pull_number: number,
      });
      return data as GitHubPull;
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }

  async getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    if (!Number.isSafeInteger(number) || number < 1) return null;
    const pr = await this.pull(repo, number);
    if (pr?.state !== 'open') return null;
    return prInfoOf(pr);
  }

  async wasMerged(repo: RepoBinding, number: number): Promise<boolean> {
    const pr = await this.pull(repo, number);
    return Boolean(pr?.merged || pr?.merged_at);
  }

  async directMergeFacts(
    repo: RepoBinding,
    pr: { headSha: string; baseBranch: string },
  ): Promise<{ baseSha?: string; checksPassed: boolean }> {
    const api = await this.api(repo);
    const tip = await this.getBranchSha(repo, pr.baseBranch);
    if (tip === null) return { checksPassed: false };
    const { data: comparison } = await api.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
      ...this.loc(repo),
      basehead: `${tip}...${pr.headSha}`,
    });
    const required = await this.requiredStatuses(repo, pr.baseBranch);
    let checksPassed = true;
    if (required.length > 0) {
      const { data: combined } = await api.request('GET /repos/{owner}/{repo}/commits/{ref}/status', {
        ...this.loc(repo),
        ref: pr.headSha,
        per_page: 100,
      });
      const states = new Map<string, string>(combined.statuses.map((s) => [s.context, s.state]));
      for (const c of await this.checkRunStatuses(repo, pr.headSha)) states.set(c.context, c.state);
      checksPassed = required.every((name) => states.get(name) === 'success');
    }
    // `ahead`: the head contains the tip and adds to it, so merging it is a fast-forward.
    return { ...(comparison.status === 'ahead' ? { baseSha: tip } : {}), checksPassed };
  }

  async getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    const api = await this.api(repo);
    try {
      const { data } = await api.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
        ...this.loc(repo),
        ref: `heads/${branch}`,
      });
      return data.object.sha;
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }

  async createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[] },
  ): Promise<BuildResult> {
    const api = await this.api(repo);
    const temp = tempBranchOf(repo, req.branch);
    await this.setBranch(api, repo, temp, req.baseSha);
    let sha = req.baseSha;
    for (const pr of req.prs) {
      try {
        const res = await api.request('POST /repos/{owner}/{repo}/merges', {
          ...this.loc(repo),
          base: temp,
          head: pr.headSha,
          commit_message: `Merge #${pr.number} (${short(pr.headSha)}) into ${req.branch}`,
        });
        // 204: the head is already contained; the branch stays where it is.
        if (res.status === 201) sha = (res.data as { sha: string }).sha;
      } catch (err) {
        if (!hasStatus(err, 409)) throw err;
        await this.removeBranch(api, repo, temp);
        const others = req.prs.slice(0, req.prs.indexOf(pr)).map((p) => `#${p.number}`);
        return {
          ok: false,
          reason: 'START_TEST_RUN_MERGE_CONFLICT',
          detail: `PR #${pr.number} does not merge cleanly onto ${short(req.baseSha)}${others.length ? ` with ${others.join(', ')}` : ''}: ${failureOf(err).message}`,
        };
      }
    }
    await this.setBranch(api, repo, req.branch, sha);
    await this.removeBranch(api, repo, temp);
    this.logger.info({ repo: `${repo.repo.owner}/${repo.repo.name}`, branch: req.branch, sha }, 'test branch created');
    return { ok: true, sha };
  }

  /** Closes the draft PRs opened for the branch, then deletes it; a missing branch is success. */
  /**
   * Runs the failed checks of a test commit again (`ciRetries`, a cancelled check): GitHub Actions
   * workflow runs of the commit that failed, were cancelled or timed out re-run their failed jobs
   * (`rerun-failed-jobs`); the check suites of other GitHub Apps that ended so are re-requested
   * (their app is sent a `check_suite` `rerequested` event). Checks reported as commit statuses
   * (the statuses API) cannot be re-run by GitHub: the CI behind them hears `test_run.retry_requested`.
   */
  async rerunChecks(repo: RepoBinding, commit: { sha: string; branch: string }): Promise<void> {
    const api = await this.api(repo);
    const { data: runs } = await api.request('GET /repos/{owner}/{repo}/actions/runs', {
      ...this.loc(repo),
      head_sha: commit.sha,
      per_page: 100,
    });
    for (const run of runs.workflow_runs) {
      if (run.status === 'completed' && RERUNNABLE.has(run.conclusion ?? ''))
        await api.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/rerun-failed-jobs', {
          ...this.loc(repo),
          run_id: Number(run.id),
        });
    }
    const { data: suites } = await api.request('GET /repos/{owner}/{repo}/commits/{ref}/check-suites', {
      ...this.loc(repo),
      ref: commit.sha,
      per_page: 100,
    });
    for (const suite of suites.check_suites) {
      if (suite.app?.slug === 'github-actions' || suite.status !== 'completed') continue;
      if (RERUNNABLE.has(suite.conclusion ?? ''))
        await api.request('POST /repos/{owner}/{repo}/check-suites/{check_suite_id}/rerequest', {
          ...this.loc(repo),
          check_suite_id: Number(suite.id),
        });
    }
  }

  async deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    const api = await this.api(repo);
    const { data: open } = await api.request('GET /repos/{owner}/{repo}/pulls', {
      ...this.loc(repo),
      head: `${repo.repo.owner}:${branch}`,
      state: 'open',
      per_page: 100,
    });
    for (const pr of open) {
      await api.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
        ...this.loc(repo),
        pull_number: pr.number,
        state: 'closed',
      });
    }
    await this.removeBranch(api, repo, branch);
  }

  async listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    const api = await this.api(repo);
    const { data } = await api.request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', {
      ...this.loc(repo),
      ref: `heads/${prefix}`,
    });
    return data.map((r) => r.ref.replace(/^refs\/heads\//, ''));
  }

  async advanceTarget(
    repo: RepoBinding,
    req: {
      targetBranch: string;
      expectedSha: string;
      testSha: string;
      prs: RunPr[];
      method: MergeMethodName;
    },
  ): Promise<AdvanceResult> {
    const api = await this.api(repo);
    const current = await this.getBranchSha(repo, req.targetBranch);
    const pulls = await Promise.all(req.prs.map((p) => this.pull(repo, p.number)));
    const isMerged = (pr: GitHubPull | null): boolean => Boolean(pr?.merged || pr?.merged_at);
    const alreadyMerged = req.prs.filter((_, i) => isMerged(pulls[i]!)).map((p) => p.number);

    if (current !== req.expectedSha) {
      // A retry of a merge that went through (its answer was lost) finds every PR merged.
      if (current && alreadyMerged.length === req.prs.length) return { ok: true, newSha: current };
      return {
        ok: false,
        reason: 'TARGET_MOVED',
        detail: `${req.targetBranch} is ${current ? `at ${short(current)}` : 'gone'}, not at ${short(req.expectedSha)}`,
        ...(alreadyMerged.length > 0 ? { mergedPrNumbers: alreadyMerged } : {}),
        ...(current ? { newSha: current } : {}),
      };
    }
    const moved = req.prs.filter((p, i) => !isMerged(pulls[i]!) && pulls[i]?.head.sha !== p.headSha);
    if (moved.length > 0) {
      const what = moved.map((p) => {
        const now = pulls[req.prs.indexOf(p)];
        return `PR #${p.number} is ${now ? `at ${short(now.head.sha)}` : 'gone'}, not at the tested ${short(p.headSha)}`;
      });
      return { ok: false, reason: 'PR_UPDATED_AT_MERGE_TIME', detail: `${what.join('; ')}; nothing merged` };
    }

    if (req.method === 'merge_commit' && alreadyMerged.length === 0) {
      const ff = await this.fastForward(api, repo, req.targetBranch, req.testSha);
      if (ff === 'done') return { ok: true, newSha: req.testSha };
      if (ff === 'moved') {
        const now = await this.getBranchSha(repo, req.targetBranch);
        return {
          ok: false,
          reason: 'TARGET_MOVED',
          detail: `${req.targetBranch} moved to ${now ? short(now) : 'nothing'} during the merge; nothing merged`,
        };
      }
    }

    const merged: number[] = [...alreadyMerged];
    let newSha = req.expectedSha;
    for (const [i, p] of req.prs.entries()) {
      if (merged.includes(p.number)) continue;
      const title = req.method === 'rebase' ? null : mergeCommitTitle(pulls[i]!.body);
      try {
        const { data } = await api.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
          ...this.loc(repo),
          pull_number: p.number,
          sha: p.headSha,
          merge_method: API_METHOD[req.method],
          ...(title ? { commit_title: title } : {}),
        });
        merged.push(p.number);
        newSha = data.sha;
      } catch (err) {
        const failure = failureOf(err);
        const partial = merged.length > 0 ? { mergedPrNumbers: [...merged], newSha } : {};
        if (failure.status === 409) {
          return {
            ok: false,
            reason: 'PR_UPDATED_AT_MERGE_TIME',
            detail: `PR #${p.number} changed before it was merged: ${failure.message}`,
            ...partial,
          };
        }
        // 405 "merge already in progress" (after retries) may have merged it after all.
        const after = await this.pull(repo, p.number);
        if (after && isMerged(after) && after.merge_commit_sha) {
          merged.push(p.number);
          newSha = (await this.getBranchSha(repo, req.targetBranch)) ?? after.merge_commit_sha;
          continue;
        }
        this.logger.warn({ pr: p.number, status: failure.status, message: failure.message }, 'GitHub refused a merge');
        return {
          ok: false,
          reason: 'GITHUB_API_MERGE_PR_FAILED',
          detail: `GitHub refused to merge PR #${p.number} (HTTP ${failure.status}): ${failure.message}`,
          ...partial,
        };
      }
    }
    this.logger.info({ target: req.targetBranch, prs: merged, method: req.method, newSha }, 'pull requests merged');
    return { ok: true, newSha };
  }

  /** Branch protection's and rulesets' required checks of `branch` (contract §4: repo_provider_branch_protection). */
  async requiredStatuses(repo: RepoBinding, branch: string): Promise<string[]> {
    const api = await this.api(repo);
    const found = new Set<string>();
    try {
      const { data } = await api.request('GET /repos/{owner}/{repo}/branches/{branch}', { ...this.loc(repo), branch });
      const checks = data.protection?.required_status_checks;
      for (const c of checks?.checks ?? []) found.add(c.context);
      for (const c of checks?.contexts ?? []) found.add(c);
    } catch (err) {
      if (!hasStatus(err, 404)) throw err;
    }
    try {
      const { data } = await api.request('GET /repos/{owner}/{repo}/rules/branches/{branch}', {
        ...this.loc(repo),
        branch,
        per_page: 100,
      });
      for (const rule of data as { type: string; parameters?: { required_status_checks?: { context: string }[] } }[]) {
        if (rule.type === 'required_status_checks')
          for (const c of rule.parameters?.required_status_checks ?? []) found.add(c.context);
      }
    } catch (err) {
      if (!hasStatus(err, 403, 404)) throw err;
    }
    return [...found];
  }

  /** The check runs GitHub has for a commit, as statuses (a check suite finished: catch up on missed check_run deliveries). */
  async checkRunStatuses(
    repo: RepoBinding,
    sha: string,
  ): Promise<{ context: string; state: 'pending' | 'success' | 'failure' | 'cancelled'; url?: string }[]> {
    const api = await this.api(repo);
    const { data } = await api.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
      ...this.loc(repo),
      ref: sha,
      per_page: 100,
    });
    return data.check_runs.map((r) => ({
      context: r.name,
      state: checkRunState(r.status, r.conclusion),
      ...(r.html_url ? { url: r.html_url } : {}),
    }));
  }

  /**
   * An impacted-target upload from a fork PR's CI vouched for by its workflow run (contract §2.6,
   * §9): the run exists in this repository, was started by a pull request event from another
   * repository (a fork), has not completed, and runs on `headSha`.
   */
  async verifyForkRun(
    repo: RepoBinding,
    runId: string,
    headSha: string,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    if (!/^\d+$/.test(runId)) return { ok: false, reason: `${JSON.stringify(runId)} is not a workflow run id` };
    const api = await this.api(repo);
    let run: { status: string | null; head_sha: string; event: string; head_repository?: { full_name: string } | null };
    try {
      ({ data: run } = await api.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}', {
        ...this.loc(repo),
        run_id: Number(runId),
      }));
    } catch (err) {
      if (hasStatus(err, 404))
        return { ok: false, reason: `no workflow run ${runId} in ${repo.repo.owner}/${repo.repo.name}` };
      throw err;
    }
    const own = `${repo.repo.owner}/${repo.repo.name}`.toLowerCase();
    if (
      !run.event.startsWith('pull_request') ||
      !run.head_repository ||
      run.head_repository.full_name.toLowerCase() === own
    ) {
      return { ok: false, reason: `workflow run ${runId} is not for a pull request from a fork` };
    }
    if (run.status === 'completed') return { ok: false, reason: `workflow run ${runId} has completed` };
    if (run.head_sha.toLowerCase() !== headSha.toLowerCase()) {
      return { ok: false, reason: `workflow run ${runId} runs on ${run.head_sha}, not on ${headSha}` };
    }
    return { ok: true };
  }

  /** Posts a comment on a PR (answers to comment commands that could not be carried out). */
  async reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    const api = await this.api(repo);
    await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...this.loc(repo),
      issue_number: number,
      body,
    });
  }

  async onQueueEvent(
    repo: RepoBinding,
    queue: { targetBranch: string; config: QueueConfig; outlook?: ReadonlyMap<number, PrOutlook> },
    event: QueueEventPayload,
  ): Promise<void> {
    await this.presence.onQueueEvent(repo, queue, event, (n) => this.pull(repo, n));
  }

  /** Creates `branch` at sha, or moves it there (a test branch belongs to its run: a retry may replace it). */
  private async setBranch(api: GitHubApi, repo: RepoBinding, branch: string, sha: string): Promise<void> {
    try {
      await api.request('POST /repos/{owner}/{repo}/git/refs', { ...this.loc(repo), ref: `refs/heads/${branch}`, sha });
    } catch (err) {
      if (!hasStatus(err, 422)) throw err;
      await api.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
        ...this.loc(repo),
        ref: `heads/${branch}`,
        sha,
        force: true,
      });
    }
  }

  private async removeBranch(api: GitHubApi, repo: RepoBinding, branch: string): Promise<void> {
    try {
      await api.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...this.loc(repo), ref: `heads/${branch}` });
    } catch (err) {
      if (!hasStatus(err, 404, 422)) throw err;
    }
  }

  /** 'done', 'moved' (not a fast-forward any more), or 'refused' (protection: merge PR by PR instead). */
  private async fastForward(
    api: GitHubApi,
    repo: RepoBinding,
    branch: string,
    sha: string,
  ): Promise<'done' | 'moved' | 'refused'> {
    try {
      await api.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
        ...this.loc(repo),
        ref: `heads/${branch}`,
        sha,
        force: false,
      });
      return 'done';
    } catch (err) {
      if (!hasStatus(err, 403, 422)) throw err;
      const { message } = failureOf(err);
      if (/fast.forward/i.test(message)) return 'moved';
      this.logger.info({ branch, message }, 'fast-forward refused; merging pull request by pull request');
      return 'refused';
    }
  }
}

export function prInfoOf(pr: GitHubPull): PrInfo {
  const unmergeable = unmergeableOf(pr);
  return {
    number: pr.number,
    headSha: pr.head.sha,
    baseBranch: pr.base.ref,
    headBranch: pr.head.ref,
    title: pr.title,
    author: pr.user?.login ?? '',
    mergeability: mergeabilityOf(pr),
    ...(unmergeable ? { unmergeable } : {}),
    ...(pr.labels ? { labels: pr.labels.map((l) => l.name) } : {}),
  };
}

/** A check run as a status: completed `cancelled` is a cancellation (tested again), not a failure. */
export function checkRunState(
  status: string | null | undefined,
  conclusion: string | null | undefined,
): 'pending' | 'success' | 'failure' | 'cancelled' {
  if (status !== 'completed') return 'pending';
  if (conclusion === 'cancelled') return 'cancelled';
  return conclusion === 'success' || conclusion === 'neutral' || conclusion === 'skipped' ? 'success' : 'failure';
}

/** Conclusions of a workflow run or check suite worth running again. */
const RERUNNABLE = new Set(['failure', 'cancelled', 'timed_out']);
