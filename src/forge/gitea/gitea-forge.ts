/**
 * The gitea forge (`--forge gitea`): Gitea, Forgejo and Codeberg through their REST API
 * (`<url>/api/v1`, client.ts), with git doing what git does best; one module per part beside this
 * one, `gitea-forge.ts` handing each port call to them (repos.ts: a repository's server, client and
 * paths).
 *
 * - The server: the binding's `remote` when set (the repository's own server, e.g.
 *   `https://git.example.com`), else the configured `url`. The token authenticates both the API
 *   (`Authorization: token …`) and git over HTTPS (as the password of Basic auth).
 * - PRs (pulls.ts) are read from the pulls API: base, head (`refs/pull/<n>/head` in the base repository),
 *   title, author, labels; a draft (`WIP:` title) or a PR the forge reports not mergeable
 *   (conflicts) waits, saying why. Closed PRs do not exist for the queue; merged ones show as merged.
 * - Test commits (the git forge, handed in as `git`) are built with `git merge-tree` in a local mirror and pushed as test branches; the
 *   target is advanced by a push with lease to exactly the tested commit (the git forge's work, given
 *   as `git`; merging.ts). Each PR so landed is then recorded merged on the forge with the merge endpoint's
 *   `manually-merged` style and the target's new commit as the merge commit (both spellings of that
 *   field): the forge shows it merged, not closed; a refusal is told on the PR.
 * - CI results (required-checks.ts) are commit statuses (Gitea and Forgejo Actions, Woodpecker, Drone, Jenkins all report
 *   them), read from the combined status page by page; `warning` counts as a failure (the check did
 *   not pass). They are read at every poll (pollsChecks): Forgejo sends no `status` event and neither
 *   forge delivers again. Required statuses are the target branch's rule as the branch API shows it.
 * - On each PR (onQueueEvent, presence.ts): a commit status `greenline (<branch>)` with the queue state and a
 *   link to the dashboard, one queue comment kept up to date, state labels if enabled.
 * - Commands from comments (permissions.ts) are honoured from people with write access or more (the
 *   repository's assignees); others are answered why.
 * - The repository (repository.ts): its spelling, default branch, push permission, manual merge
 *   settings and the default branch's protection, for `repo connect`. Everything is read with what a
 *   user with Write may read: no admin-only endpoint.
 * - Re-running CI: the forges' Actions APIs differ (Gitea re-runs a run's jobs, Forgejo has none) and
 *   most CI reporting statuses is not Actions, so this forge leaves `rerunChecks` out: a retry is told
 *   to CI by the `test_run.retry_requested` event.
 */
import type { Logger } from 'pino';
import type { PrInfo, QueueEventPayload, RunPr } from '../../engine/types.js';
import type { GitOperations } from '../definition.js';
import type { AdvanceResult, BuildResult, CiStatus, ForgePort, ForgeRepository, RepoBinding } from '../port.js';
import { advanceTarget } from './merging.js';
import { mayCommand } from './permissions.js';
import { GiteaPresence } from './presence.js';
import { getPullRequest, wasMerged } from './pulls.js';
import { GiteaRepos } from './repos.js';
import { type GiteaRepositoryFacts, repositoryFacts } from './repository.js';
import { commitStatuses, requiredStatuses } from './required-checks.js';

export type { GiteaRepositoryFacts } from './repository.js';

export interface GiteaForgeOptions {
  /** The server, e.g. `https://git.example.com` (the API is `<url>/api/v1`); a binding's `remote` wins. */
  url: string;
  /** An access token with repository read and write (`Authorization: token …`). */
  token: string;
  /** The git forge that builds, pushes and advances branches on the clone URL. */
  git: GitOperations;
  logger: Logger;
  /** Link of the status's Details and of comments; `{owner}`, `{repo}`, `{branch}`, `{pr}` replaced. */
  detailsUrl?: string;
  /** The HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
  /** The deadline of each API request (default 30 s; see client.ts). */
  requestTimeoutMs?: number;
}

export class GiteaForge implements ForgePort {
  private readonly repos: GiteaRepos;
  private readonly presence: GiteaPresence;

  constructor(private readonly opts: GiteaForgeOptions) {
    this.repos = new GiteaRepos({
      url: opts.url,
      token: opts.token,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.requestTimeoutMs !== undefined ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
    });
    this.presence = new GiteaPresence({
      repos: this.repos,
      logger: opts.logger,
      ...(opts.detailsUrl ? { detailsUrl: opts.detailsUrl } : {}),
    });
  }

  getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    return getPullRequest(this.repos, repo, number);
  }

  wasMerged(repo: RepoBinding, number: number): Promise<boolean> {
    return wasMerged(this.repos, repo, number);
  }

  getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    return this.opts.git.getBranchSha(this.repos.gitBinding(repo), branch);
  }

  createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
  ): Promise<BuildResult> {
    return this.opts.git.createTestBranch(this.repos.gitBinding(repo), req);
  }

  changedFiles(repo: RepoBinding, commits: { from: string; to: string }): Promise<string[] | null> {
    return this.opts.git.changedFiles(this.repos.gitBinding(repo), commits);
  }

  deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    return this.opts.git.deleteBranch(this.repos.gitBinding(repo), branch);
  }

  listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    return this.opts.git.listBranches(this.repos.gitBinding(repo), prefix);
  }

  advanceTarget(repo: RepoBinding, req: Parameters<ForgePort['advanceTarget']>[1]): Promise<AdvanceResult> {
    return advanceTarget(
      { repos: this.repos, git: this.opts.git, presence: this.presence, logger: this.opts.logger },
      repo,
      req,
    );
  }

  requiredStatuses(repo: RepoBinding, branch: string): Promise<string[]> {
    return requiredStatuses(this.repos, repo, branch);
  }

  checkStatuses(repo: RepoBinding, sha: string): Promise<CiStatus[]> {
    return commitStatuses(this.repos, repo, sha);
  }

  /**
   * Always: Forgejo sends no `status` event, and neither forge delivers a webhook again after it
   * failed (greenline down, a restart), so a result CI reported could otherwise wait unheard.
   */
  pollsChecks(): boolean {
    return true;
  }

  /** The repository's own spelling of its owner and name, and its default branch; null when not visible. */
  async describeRepository(repo: RepoBinding): Promise<ForgeRepository | null> {
    const facts = await this.repositoryFacts(repo);
    return facts ? { owner: facts.owner, name: facts.name, defaultBranch: facts.defaultBranch } : null;
  }

  /** describeRepository, with whether the token may push and the branch protection rules. */
  repositoryFacts(repo: RepoBinding): Promise<GiteaRepositoryFacts | null> {
    return repositoryFacts(this.repos, repo);
  }

  mayCommand(
    repo: RepoBinding,
    author: { login?: string; standing?: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    return mayCommand(this.repos, repo, author);
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
