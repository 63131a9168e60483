/**
 * The github forge (`--forge github`): PRs, branches and merges through GitHub's REST API, one
 * module per part beside this one.
 *
 * - Readiness (pulls.ts): a PR's base, mergeability and draft flag come from the pulls API. Closed PRs
 *   do not exist for the queue.
 * - Test branches (branches.ts): built on a temporary branch with the merges API, then published.
 * - Merging (merging.ts): a fast-forward of the target where allowed, else the merge endpoint PR by PR.
 * - Required checks (required-checks.ts): branch protection's and rulesets', check runs as statuses,
 *   and the direct merge facts.
 * - Workflow runs (workflow-runs.ts): failed checks run again; fork runs vouching for uploads.
 * - Presence (onQueueEvent, presence.ts): check runs or commit statuses, one comment per PR, state
 *   labels, and draft PRs for test branches.
 */
import type { Logger } from 'pino';
import type { PrOutlook } from '../../../engine/eta.js';
import type { PrInfo, QueueConfig, QueueEventPayload, RunPr } from '../../../engine/types.js';
import type { AdvanceResult, BuildResult, CiStatus, ForgePort, RepoBinding } from '../../../ports.js';
import { createTestBranch, deleteBranch, getBranchSha, listBranches } from './branches.js';
import { GitHubClients, type GitHubClientOptions, type RepoApi } from './client.js';
import { type AdvanceRequest, advanceTarget } from './merging.js';
import { Presence } from './presence.js';
import { fetchPull, isMerged, prInfoOf } from './pulls.js';
import { commitChecks, directMergeFacts, requiredStatuses } from './required-checks.js';
import { rerunChecks, verifyForkRun } from './workflow-runs.js';

export interface GitHubForgeOptions extends GitHubClientOptions {
  /**
   * Link of the status check's Details and of comments; `{owner}`, `{repo}`, `{branch}` and `{pr}`
   * are replaced. Absent = no link.
   */
  detailsUrl?: string;
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

  private gh(repo: RepoBinding): Promise<RepoApi> {
    return this.clients.repoApi(repo);
  }

  async getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    if (!Number.isSafeInteger(number) || number < 1) return null;
    const pr = await fetchPull(await this.gh(repo), number);
    if (pr?.state !== 'open') return null;
    return prInfoOf(pr);
  }

  async wasMerged(repo: RepoBinding, number: number): Promise<boolean> {
    return isMerged(await fetchPull(await this.gh(repo), number));
  }

  async directMergeFacts(
    repo: RepoBinding,
    pr: { headSha: string; baseBranch: string },
  ): Promise<{ baseSha?: string; checksPassed: boolean }> {
    return directMergeFacts(await this.gh(repo), pr);
  }

  async getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    return getBranchSha(await this.gh(repo), branch);
  }

  async createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
  ): Promise<BuildResult> {
    return createTestBranch(await this.gh(repo), this.logger, repo, req);
  }

  async rerunChecks(
    repo: RepoBinding,
    commit: { sha: string; branch: string; only?: string[] },
  ): Promise<{ waiting: string[] }> {
    return rerunChecks(await this.gh(repo), commit.sha, commit.only);
  }

  async deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    await deleteBranch(await this.gh(repo), branch);
  }

  async listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    return listBranches(await this.gh(repo), prefix);
  }

  async advanceTarget(repo: RepoBinding, req: AdvanceRequest): Promise<AdvanceResult> {
    return advanceTarget(await this.gh(repo), this.logger, req);
  }

  async requiredStatuses(repo: RepoBinding, branch: string): Promise<string[]> {
    return requiredStatuses(await this.gh(repo), branch);
  }

  /** The commit's check runs and its commit statuses (the combined status). */
  async checkRunStatuses(repo: RepoBinding, sha: string): Promise<CiStatus[]> {
    return commitChecks(await this.gh(repo), sha);
  }

  async verifyForkRun(
    repo: RepoBinding,
    runId: string,
    headSha: string,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    return verifyForkRun(this.clients, repo, runId, headSha);
  }

  /** Posts a comment on a PR (answers to comment commands that could not be carried out). */
  async reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    const { api, loc } = await this.gh(repo);
    await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
      ...loc,
      issue_number: number,
      body,
    });
  }

  async onQueueEvent(
    repo: RepoBinding,
    queue: { targetBranch: string; config: QueueConfig; outlook?: ReadonlyMap<number, PrOutlook> },
    event: QueueEventPayload,
  ): Promise<void> {
    await this.presence.onQueueEvent(repo, queue, event);
  }
}
