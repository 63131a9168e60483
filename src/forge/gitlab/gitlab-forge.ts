/**
 * The gitlab forge (`--forge gitlab`): GitLab CE/EE self-managed and gitlab.com through the REST API
 * (`<url>/api/v4`, client.ts), with git doing what git does best; one module per part beside this one,
 * this class handing each port call to them (projects.ts: a project's server, client and paths).
 *
 * - MRs (merge-requests.ts): read from the API; drafts, conflicts and GitLab's merge checks
 *   (`detailed_merge_status`) wait, saying why; `checking` is read again, never a conflict.
 * - Test commits and branches: the git forge (handed in) on the clone URL, the token as the password;
 *   MR heads at `refs/merge-requests/<iid>/head`.
 * - Merging (merging.ts): a push of the tested commit (GitLab marks the MRs merged), or for squash
 *   the merge API one MR at a time with the `sha` guard.
 * - CI (ci.ts): commit statuses (jobs and external statuses) and the pipeline as `gitlab/pipeline`;
 *   retries retry the failed jobs.
 * - Presence (presence.ts), commands' permissions (permissions.ts), the project for connect (repository.ts).
 */
import type { Logger } from 'pino';
import type { PrInfo, QueueEventPayload, RunPr } from '../../engine/types.js';
import type { GitOperations } from '../definition.js';
import type { ForgeDelivery } from '../observations.js';
import type { AdvanceResult, BuildResult, CiStatus, ForgePort, ForgeRepository, RepoBinding } from '../port.js';
import { commitStatuses, requiredStatuses, rerunChecks } from './ci.js';
import { getPullRequest, wasMerged } from './merge-requests.js';
import { advanceTarget } from './merging.js';
import { mayCommand } from './permissions.js';
import { GitlabPresence } from './presence.js';
import { GitlabProjects } from './projects.js';
import { type GitlabProjectFacts, projectFacts } from './repository.js';
import { assignedOn, readGitlabDelivery } from './webhook-events.js';
import type { ACCESS_LEVELS } from './settings.js';

export type { GitlabProjectFacts } from './repository.js';

export interface GitlabForgeOptions {
  /** The server, e.g. `https://gitlab.com`; a binding's `remote` wins. */
  url: string;
  token: string;
  git: GitOperations;
  logger: Logger;
  /** The least role whose note commands act. */
  commandRole?: keyof typeof ACCESS_LEVELS;
  /** Link of the status and notes; `{owner}`, `{repo}`, `{branch}`, `{pr}` replaced. */
  detailsUrl?: string;
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
}

export class GitlabForge implements ForgePort {
  private readonly projects: GitlabProjects;
  private readonly presence: GitlabPresence;
  /** greenline's own username per server, asked once (`GET /user`). */
  private readonly selves = new Map<string, Promise<string>>();

  constructor(private readonly opts: GitlabForgeOptions) {
    this.projects = new GitlabProjects({
      url: opts.url,
      token: opts.token,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    });
    this.presence = new GitlabPresence(this.projects, opts.logger, opts.detailsUrl);
  }

  /** A webhook delivery as observations, an MR assigned to greenline's own user as a merge command. */
  async translate(event: string, payload: unknown): Promise<ForgeDelivery | null> {
    const server = assignedOn(event, payload);
    return readGitlabDelivery(event, payload, server ? await this.ownUsername(server) : null);
  }

  /** The username of the token's user on the server at `url`. */
  ownUsername(url: string): Promise<string> {
    let self = this.selves.get(url);
    if (!self) {
      self = this.projects
        .clientAt(url)
        .request<{ username: string }>('GET', '/user')
        .then((u) => u.username);
      self.catch(() => this.selves.delete(url));
      this.selves.set(url, self);
    }
    return self;
  }

  getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    return getPullRequest(this.projects, repo, number);
  }

  wasMerged(repo: RepoBinding, number: number): Promise<boolean> {
    return wasMerged(this.projects, repo, number);
  }

  getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    return this.opts.git.getBranchSha(this.projects.gitBinding(repo), branch);
  }

  createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
  ): Promise<BuildResult> {
    return this.opts.git.createTestBranch(this.projects.gitBinding(repo), req);
  }

  deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    return this.opts.git.deleteBranch(this.projects.gitBinding(repo), branch);
  }

  listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    return this.opts.git.listBranches(this.projects.gitBinding(repo), prefix);
  }

  advanceTarget(repo: RepoBinding, req: Parameters<ForgePort['advanceTarget']>[1]): Promise<AdvanceResult> {
    return advanceTarget({ projects: this.projects, git: this.opts.git, presence: this.presence }, repo, req);
  }

  requiredStatuses(repo: RepoBinding): Promise<string[]> {
    return requiredStatuses(this.projects, repo);
  }

  checkStatuses(repo: RepoBinding, sha: string): Promise<CiStatus[]> {
    return commitStatuses(this.projects, repo, sha);
  }

  rerunChecks(repo: RepoBinding, commit: { sha: string; branch: string }): Promise<{ waiting: string[] }> {
    return rerunChecks(this.projects, repo, commit);
  }

  async describeRepository(repo: RepoBinding): Promise<ForgeRepository | null> {
    const facts = await this.projectFacts(repo);
    return facts ? { owner: facts.owner, name: facts.name, defaultBranch: facts.defaultBranch } : null;
  }

  /** describeRepository, with the merge settings, protected branches and the token user's push right. */
  projectFacts(repo: RepoBinding): Promise<GitlabProjectFacts | null> {
    return projectFacts(this.projects, repo);
  }

  mayCommand(repo: RepoBinding, author: { login?: string }): Promise<{ ok: true } | { ok: false; reason: string }> {
    return mayCommand(this.projects, repo, this.opts.commandRole ?? 'developer', author);
  }

  reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    return this.presence.reply(repo, number, body);
  }

  onQueueEvent(
    repo: RepoBinding,
    queue: Parameters<NonNullable<ForgePort['onQueueEvent']>>[1],
    event: QueueEventPayload,
  ): Promise<void> {
    return this.presence.onQueueEvent(repo, queue, event);
  }
}
