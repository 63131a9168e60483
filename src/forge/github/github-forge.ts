/**
 * The github forge (`--forge github`): PRs, branches and merges through GitHub's REST API, one
 * module per part beside this one.
 *
 * - Readiness (pulls.ts): a PR's base, mergeability, draft flag and stack come from the pulls API; a
 *   PR blocked only by greenline's own required check is ready (required-checks.ts). Closed PRs do not
 *   exist for the queue.
 * - The repository (describeRepository): GitHub's own spelling of its name, for `repo connect`.
 * - Installations (observeAccess): an `installation*` delivery has the App's installation looked up again.
 * - Test branches (branches.ts): built on a temporary branch with the merges API, then published.
 * - Merging (merging.ts): a fast-forward of the target where allowed, else the merge endpoint PR by PR,
 *   and GitHub's asynchronous merge for a PR of a GitHub stack (merge-async.ts); under strict
 *   protection each behind PR is brought up to date first (up-to-date.ts); a batch GitHub would refuse
 *   part of (merge_queue rules) is not merged at all; greenline's own check is passed first where the
 *   target requires it.
 * - Required checks (required-checks.ts): branch protection's and rulesets', check runs as statuses,
 *   and the direct merge facts.
 * - Workflow runs (workflow-runs.ts): failed checks run again; fork runs vouching for uploads.
 * - Permissions (permissions.ts): who may command the queue from a PR comment.
 * - Presence (onQueueEvent, presence.ts): check runs or commit statuses, one comment per PR, state
 *   labels, and test PRs for test branches.
 */
import type { Logger } from 'pino';
import type { PrInfo, QueueEventPayload, RunPr } from '../../engine/types.js';
import type { AdvanceResult, BuildResult, ForgePort, ForgeRepository, RepoBinding } from '../port.js';
import type { CiStatus } from '../port.js';
import { changedFiles, createTestBranch, deleteBranch, getBranchSha, listBranches } from './branches.js';
import { GitHubClients, hasStatus, type GitHubClientOptions, type RepoApi } from './client.js';
import { createOnce, NOT_RETRIED } from './create-once.js';
import { type AsyncMergePolling, DEFAULT_ASYNC_MERGE_POLLING } from './merge-async.js';
import { type AdvanceRequest, advanceTarget } from './merging.js';
import { type CommandPermission, mayCommand } from './permissions.js';
import { Presence } from './presence.js';
import { unsignedCommitsReason } from './signatures.js';
import { installationChangeOf } from './observations.js';
import { fetchPull, isMerged, prInfoOf } from './pulls.js';
import {
  blockedOnlyByOwnCheck,
  branchRules,
  commitChecks,
  directMergeFacts,
  requiredStatuses,
  requiresOwnCheck,
} from './required-checks.js';
import { rerunChecks, verifyForkRun } from './workflow-runs.js';

export interface GitHubForgeOptions extends GitHubClientOptions {
  /**
   * Link of the status check's Details and of comments; `{owner}`, `{repo}`, `{branch}` and `{pr}`
   * are replaced. Absent = no link.
   */
  detailsUrl?: string;
  /** The least permission on the repository that lets a PR comment command the queue (default write). */
  commandPermission?: CommandPermission;
  /**
   * Title of the PRs opened for test branches (createPrsForTestingBranches); `{prs}` (`#12, #13`) and
   * `{branch}` are replaced (the server setting githubTestPrTitle).
   */
  testPrTitle: string;
  /** How a stacked PR's asynchronous merge is followed within one attempt (default: a read a second, 60 reads). */
  asyncMergePolling?: AsyncMergePolling;
}

export class GitHubForge implements ForgePort {
  readonly clients: GitHubClients;
  private readonly logger: Logger;
  private readonly presence: Presence;
  private readonly commandPermission: CommandPermission;
  private readonly asyncMergePolling: AsyncMergePolling;

  constructor(opts: GitHubForgeOptions) {
    this.asyncMergePolling = opts.asyncMergePolling ?? DEFAULT_ASYNC_MERGE_POLLING;
    this.clients = new GitHubClients(opts);
    this.logger = opts.logger;
    this.commandPermission = opts.commandPermission ?? 'write';
    this.presence = new Presence({
      clients: this.clients,
      logger: opts.logger,
      ...(opts.detailsUrl ? { detailsUrl: opts.detailsUrl } : {}),
      testPrTitle: opts.testPrTitle,
    });
  }

  private gh(repo: RepoBinding): Promise<RepoApi> {
    return this.clients.repoApi(repo);
  }

  async getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    if (!Number.isSafeInteger(number) || number < 1) return null;
    const gh = await this.gh(repo);
    const pr = await fetchPull(gh, number);
    if (pr?.state !== 'open') return null;
    const ownCheckOnly =
      pr.mergeable_state === 'blocked' &&
      pr.mergeable !== false &&
      !pr.draft &&
      (await blockedOnlyByOwnCheck(gh, { number, headSha: pr.head.sha, baseBranch: pr.base.ref }));
    const blockedBecause =
      pr.mergeable_state === 'blocked' && !ownCheckOnly
        ? await unsignedCommitsReason(gh, { number, baseBranch: pr.base.ref }, await branchRules(gh, pr.base.ref))
        : null;
    return prInfoOf(pr, ownCheckOnly, blockedBecause);
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

  async changedFiles(repo: RepoBinding, commits: { from: string; to: string }): Promise<string[] | null> {
    return changedFiles(await this.gh(repo), commits);
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

  /** `GET /repos/{owner}/{repo}` (any letter case reaches it): GitHub's own spelling in `full_name`. */
  async describeRepository(repo: RepoBinding): Promise<ForgeRepository | null> {
    const { api, loc } = await this.gh(repo);
    try {
      const { data } = await api.request('GET /repos/{owner}/{repo}', loc);
      const [owner = loc.owner, name = loc.repo] = data.full_name.split('/');
      return { owner, name, defaultBranch: data.default_branch };
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }

  /**
   * Where the target requires greenline's own check, the tested PR heads (and the tested commit, for
   * a fast-forward) are given it as passed first, and so is a head GitHub brought up to date with the
   * target (strict protection) before it is merged: GitHub merges nothing whose required checks
   * have not passed.
   */
  async advanceTarget(repo: RepoBinding, req: AdvanceRequest): Promise<AdvanceResult> {
    const gh = await this.gh(repo);
    const ownCheck = await requiresOwnCheck(gh, req.targetBranch);
    const passOwnCheck = async (shas: string[]): Promise<void> => {
      if (ownCheck) await this.presence.showPassed(repo, req.targetBranch, shas);
    };
    await passOwnCheck([...req.prs.map((p) => p.headSha), ...(req.method === 'merge_commit' ? [req.testSha] : [])]);
    return advanceTarget(gh, this.logger, req, this.asyncMergePolling, (sha) => passOwnCheck([sha]));
  }

  async requiredStatuses(repo: RepoBinding, branch: string): Promise<string[]> {
    return requiredStatuses(await this.gh(repo), branch);
  }

  /** The commit's check runs and its commit statuses (the combined status). */
  async checkStatuses(repo: RepoBinding, sha: string): Promise<CiStatus[]> {
    return commitChecks(await this.gh(repo), sha);
  }

  async verifyForkCiRun(
    repo: RepoBinding,
    runId: string,
    headSha: string,
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    return verifyForkRun(this.clients, repo, runId, headSha);
  }

  /** Whether the author of a PR comment has the permission that lets comments command the queue (permissions.ts). */
  async mayCommand(
    repo: RepoBinding,
    author: { login?: string; standing?: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    return mayCommand(await this.gh(repo), author, this.commandPermission);
  }

  /**
   * Reads a delivery about the App's installations (installationChangeOf): the forge forgets what it
   * kept of that installation and of the repositories named, and looks them up again when next used.
   * True when the delivery was one.
   */
  observeAccess(event: string, payload: unknown): boolean {
    const change = installationChangeOf(event, payload);
    if (!change) return false;
    this.clients.forgetInstallation(change);
    this.logger.info(change, 'the GitHub App installation changed: it is looked up again');
    return true;
  }

  /**
   * Posts a comment on a PR (answers to comment commands that could not be carried out); after a
   * 5xx, a last comment with the same text is the one posted.
   */
  async reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    const { api, loc } = await this.gh(repo);
    await createOnce(
      this.logger,
      `reply on #${number}`,
      async () => {
        await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...loc,
          issue_number: number,
          body,
          request: NOT_RETRIED,
        });
        return true;
      },
      async () => {
        const { data } = await api.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...loc,
          issue_number: number,
          per_page: 100,
        });
        return data.at(-1)?.body === body ? true : null;
      },
    );
  }

  async onQueueEvent(
    repo: RepoBinding,
    queue: Parameters<NonNullable<ForgePort['onQueueEvent']>>[1],
    event: QueueEventPayload,
  ): Promise<void> {
    await this.presence.onQueueEvent(repo, queue, event);
  }
}
