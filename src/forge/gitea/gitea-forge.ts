/**
 * The gitea forge (`--forge gitea`): Gitea, Forgejo and Codeberg through their REST API
 * (`<url>/api/v1`, client.ts), with git doing what git does best.
 *
 * - The server: the binding's `remote` when set (the repository's own server, e.g.
 *   `https://git.example.com`), else the configured `url`. The token authenticates both the API
 *   (`Authorization: token …`) and git over HTTPS (as the password of Basic auth).
 * - PRs are read from the pulls API: base, head (`refs/pull/<n>/head` in the base repository),
 *   title, author, labels; a draft (`WIP:` title) or a PR the forge reports not mergeable
 *   (conflicts) waits, saying why. Closed PRs do not exist for the queue; merged ones show as merged.
 * - Test commits are built with `git merge-tree` in a local mirror and pushed as test branches; the
 *   target is advanced by a push with lease to exactly the tested commit (the git forge's work, given
 *   as `git`). Each PR so landed is then recorded merged on the forge with the merge endpoint's
 *   `manually-merged` style, the tested head as `head_commit_id` (the forge refuses a PR whose head
 *   moved) and the target's new commit as the merge commit: the forge shows it merged, not closed.
 * - CI results are commit statuses (Gitea and Forgejo Actions, Woodpecker, Drone, Jenkins all report
 *   them), read from the combined status page by page; `warning` counts as a failure (the check did
 *   not pass). Required statuses are branch protection's `status_check_contexts` when the rule
 *   enables status checks.
 * - On each PR (onQueueEvent): a commit status `greenline (<branch>)` with the queue state and a
 *   link to the dashboard, one queue comment kept up to date, state labels if enabled.
 * - Commands from comments are honoured from people with write permission or more (collaborator
 *   permission endpoint); others are answered why.
 * - Re-running CI: the forges' Actions APIs differ (Gitea re-runs a run's jobs, Forgejo has none) and
 *   most CI reporting statuses is not Actions, so this forge leaves `rerunChecks` out: a retry is told
 *   to CI by the `test_run.retry_requested` event.
 */
import type { Logger } from 'pino';
import type { PrInfo, QueueEventPayload, RunPr } from '../../engine/types.js';
import {
  checkName,
  commentBody,
  commentMarker,
  describeStage,
  detailsLink,
  LABEL_PREFIX,
  outlookText,
  SHOWN,
  STATE_LABELS,
  type Stage,
} from '../presence.js';
import type { AdvanceResult, BuildResult, ForgePort, ForgeRepository, RepoBinding } from '../port.js';
import type { CiStatus } from '../port.js';
import { GiteaApiError, GiteaClient, hasStatus } from './client.js';
import { ciStateOf } from './webhook-events.js';

/** What the gitea forge leaves to git: the git forge, on the repository's clone URL. */
export type GitOperations = Pick<ForgePort, 'getBranchSha' | 'createTestBranch' | 'deleteBranch' | 'advanceTarget'> &
  Required<Pick<ForgePort, 'listBranches'>>;

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
}

/** A PR as the pulls API shows it (the fields greenline reads). */
interface GiteaPull {
  number: number;
  title: string;
  state: string;
  draft?: boolean;
  mergeable?: boolean;
  merged?: boolean;
  user?: { login?: string } | null;
  labels?: { id: number; name: string }[] | null;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
}

interface GiteaStatus {
  context: string;
  status: string;
  target_url?: string | null;
  description?: string | null;
}

interface GiteaProtection {
  rule_name?: string;
  branch_name?: string;
  enable_status_check?: boolean;
  status_check_contexts?: string[] | null;
}

/** What `repo connect` tells of a repository beyond its name (repositoryFacts). */
export interface GiteaRepositoryFacts extends ForgeRepository {
  /** Whether the token may push to the repository (write permission or more). */
  canPush: boolean;
  /** Branch protection rules: the branch (glob) each protects and the status contexts it requires. */
  protections: { rule: string; requiredContexts: string[] }[];
}

/** Repository permissions that let a PR comment command the queue. */
const MAY_COMMAND = new Set(['write', 'admin', 'owner']);

export class GiteaForge implements ForgePort {
  private readonly clients = new Map<string, GiteaClient>();
  /** The queue comment's id per repository, PR and queue, once found or made. */
  private readonly commentIds = new Map<string, number>();

  constructor(private readonly opts: GiteaForgeOptions) {}

  /** The server of a repository (its binding's `remote`, else the configured url), without a trailing slash. */
  private serverOf(repo: RepoBinding): string {
    return (repo.remote || this.opts.url).replace(/\/+$/, '');
  }

  private client(repo: RepoBinding): GiteaClient {
    const url = this.serverOf(repo);
    let c = this.clients.get(url);
    if (!c) {
      c = new GiteaClient(url, this.opts.token, this.opts.fetch);
      this.clients.set(url, c);
    }
    return c;
  }

  private path(repo: RepoBinding, rest = ''): string {
    return `/repos/${encodeURIComponent(repo.repo.owner)}/${encodeURIComponent(repo.repo.name)}${rest}`;
  }

  /** The binding git works on: the clone URL with the token, PR heads at `refs/pull/<n>/head`. */
  private gitBinding(repo: RepoBinding): RepoBinding {
    const clone = new URL(`${this.serverOf(repo)}/${repo.repo.owner}/${repo.repo.name}.git`);
    clone.username = 'greenline';
    clone.password = this.opts.token;
    return { ...repo, remote: clone.href, prRefPattern: 'refs/pull/{n}/head' };
  }

  private async pull(repo: RepoBinding, number: number): Promise<GiteaPull | null> {
    try {
      return await this.client(repo).request<GiteaPull>('GET', this.path(repo, `/pulls/${number}`));
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }

  async getPullRequest(repo: RepoBinding, number: number): Promise<PrInfo | null> {
    if (!Number.isSafeInteger(number) || number < 1) return null;
    const pr = await this.pull(repo, number);
    if (pr?.state !== 'open') return null;
    const unmergeable = pr.draft
      ? { cause: 'draft' as const }
      : pr.mergeable === false
        ? { cause: 'conflict' as const }
        : undefined;
    return {
      number: pr.number,
      headSha: pr.head.sha,
      baseBranch: pr.base.ref,
      headBranch: pr.head.ref,
      title: pr.title,
      author: pr.user?.login ?? '',
      mergeability: unmergeable ? 'not_mergeable' : 'mergeable',
      ...(unmergeable ? { unmergeable } : {}),
      labels: (pr.labels ?? []).map((l) => l.name),
    };
  }

  async wasMerged(repo: RepoBinding, number: number): Promise<boolean> {
    return (await this.pull(repo, number))?.merged === true;
  }

  getBranchSha(repo: RepoBinding, branch: string): Promise<string | null> {
    return this.opts.git.getBranchSha(this.gitBinding(repo), branch);
  }

  createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
  ): Promise<BuildResult> {
    return this.opts.git.createTestBranch(this.gitBinding(repo), req);
  }

  deleteBranch(repo: RepoBinding, branch: string): Promise<void> {
    return this.opts.git.deleteBranch(this.gitBinding(repo), branch);
  }

  listBranches(repo: RepoBinding, prefix: string): Promise<string[]> {
    return this.opts.git.listBranches(this.gitBinding(repo), prefix);
  }

  /**
   * A push with lease of the target to the tested result (the git forge), then each PR recorded
   * merged on the forge (`manually-merged` with its tested head as guard). A PR the forge will not
   * record so (its head moved after the push, someone merged it meanwhile) is logged: the target
   * holds its tested change either way.
   */
  async advanceTarget(repo: RepoBinding, req: Parameters<ForgePort['advanceTarget']>[1]): Promise<AdvanceResult> {
    const result = await this.opts.git.advanceTarget(this.gitBinding(repo), req);
    if (!result.ok) return result;
    const client = this.client(repo);
    const forgejo = (await client.dialect()) === 'forgejo';
    for (const pr of req.prs) {
      try {
        await client.request('POST', this.path(repo, `/pulls/${pr.number}/merge`), {
          [forgejo ? 'Do' : 'do']: 'manually-merged',
          [forgejo ? 'MergeCommitID' : 'merge_commit_id']: result.newSha,
          head_commit_id: pr.headSha,
        });
      } catch (err) {
        if (!(err instanceof GiteaApiError)) throw err;
        const merged = await this.wasMerged(repo, pr.number).catch(() => false);
        if (!merged)
          this.opts.logger.warn(
            { pr: pr.number, target: req.targetBranch, sha: result.newSha, err: err.message },
            `PR #${pr.number} landed on ${req.targetBranch} but the forge did not record it merged: ${err.message}`,
          );
      }
    }
    return result;
  }

  /** The status contexts branch protection requires on `branch` (when its rule enables status checks). */
  async requiredStatuses(repo: RepoBinding, branch: string): Promise<string[]> {
    const rule = ruleFor(await this.protections(repo), branch);
    return rule?.enable_status_check ? [...(rule.status_check_contexts ?? [])] : [];
  }

  private protections(repo: RepoBinding): Promise<GiteaProtection[]> {
    return this.client(repo).request<GiteaProtection[]>('GET', this.path(repo, '/branch_protections'));
  }

  /** The latest status of each context of the commit (the combined status, every page). */
  async checkStatuses(repo: RepoBinding, sha: string): Promise<CiStatus[]> {
    const client = this.client(repo);
    const statuses: GiteaStatus[] = [];
    for (let page = 1; page < 1000; page++) {
      const combined = await client.request<{ statuses?: GiteaStatus[] | null; total_count?: number }>(
        'GET',
        this.path(repo, `/commits/${sha}/status`),
        undefined,
        { page, limit: 50 },
      );
      const got = combined.statuses ?? [];
      statuses.push(...got);
      if (got.length === 0 || statuses.length >= (combined.total_count ?? 0)) break;
    }
    return statuses.map((s) => ({
      context: s.context,
      state: ciStateOf(s.status) ?? 'pending',
      ...(s.target_url ? { url: s.target_url } : {}),
      ...(s.description ? { description: s.description } : {}),
    }));
  }

  /** The repository's own spelling of its owner and name, and its default branch; null when not visible. */
  async describeRepository(repo: RepoBinding): Promise<ForgeRepository | null> {
    const facts = await this.repositoryFacts(repo);
    return facts ? { owner: facts.owner, name: facts.name, defaultBranch: facts.defaultBranch } : null;
  }

  /** describeRepository, with whether the token may push and the branch protection rules. */
  async repositoryFacts(repo: RepoBinding): Promise<GiteaRepositoryFacts | null> {
    let data: { full_name: string; default_branch: string; permissions?: { push?: boolean; admin?: boolean } };
    try {
      data = await this.client(repo).request('GET', this.path(repo));
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
    const [owner = repo.repo.owner, name = repo.repo.name] = data.full_name.split('/');
    const protections = (await this.protections(repo)).map((p) => ({
      rule: p.rule_name || p.branch_name || '',
      requiredContexts: p.enable_status_check ? [...(p.status_check_contexts ?? [])] : [],
    }));
    return {
      owner,
      name,
      defaultBranch: data.default_branch,
      canPush: Boolean(data.permissions?.push || data.permissions?.admin),
      protections,
    };
  }

  async mayCommand(
    repo: RepoBinding,
    author: { login?: string; standing?: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }> {
    let permission = 'none';
    if (author.login) {
      try {
        const data = await this.client(repo).request<{ permission?: string }>(
          'GET',
          this.path(repo, `/collaborators/${encodeURIComponent(author.login)}/permission`),
        );
        permission = data.permission ?? 'none';
      } catch (err) {
        if (!hasStatus(err, 404)) throw err;
      }
    }
    if (MAY_COMMAND.has(permission)) return { ok: true };
    return {
      ok: false,
      reason: `only people with write access to ${repo.repo.owner}/${repo.repo.name} can command the merge queue (${author.login ?? 'the author'} has ${permission}); ask a maintainer`,
    };
  }

  async reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    await this.client(repo).request('POST', this.path(repo, `/issues/${number}/comments`), { body });
  }

  async onQueueEvent(
    repo: RepoBinding,
    queue: Parameters<NonNullable<ForgePort['onQueueEvent']>>[1],
    event: QueueEventPayload,
  ): Promise<void> {
    if (!event.type.startsWith('pull_request.')) return;
    const { config, targetBranch } = queue;
    const stage = event.type.split('.')[1] as Stage;
    for (const n of event.prNumbers) {
      try {
        const pr = await this.pull(repo, n);
        if (!pr) continue;
        const text =
          describeStage(stage, event, queue.reasons?.get(n), 'the forge') + outlookText(queue.outlook?.get(n));
        const link = detailsLink(this.opts.detailsUrl, repo.repo, targetBranch, n);
        if (config.statusCheckEnabled) await this.showStatus(repo, targetBranch, pr.head.sha, stage, link);
        if (config.commentsEnabled)
          await this.showComment(repo, targetBranch, n, commentBody(targetBranch, stage, text, link));
        await this.showLabel(repo, pr, stage, config.stateLabelsEnabled);
      } catch (err) {
        this.opts.logger.warn({ err, event: event.type, pr: n }, 'could not show a queue event on the forge');
      }
    }
  }

  private async showStatus(
    repo: RepoBinding,
    branch: string,
    sha: string,
    stage: Stage,
    link: string | null,
  ): Promise<void> {
    const shown = SHOWN[stage];
    await this.client(repo).request('POST', this.path(repo, `/statuses/${sha}`), {
      context: checkName(branch),
      state: shown.state,
      description: shown.title,
      ...(link ? { target_url: link } : {}),
    });
  }

  /** The one queue comment of the PR, found by its marker and edited in place. */
  private async showComment(repo: RepoBinding, branch: string, pr: number, body: string): Promise<void> {
    const client = this.client(repo);
    const key = `${repo.id}:${pr}:${branch}`;
    let id = this.commentIds.get(key);
    if (id === undefined) {
      const comments = await client.request<{ id: number; body: string }[]>(
        'GET',
        this.path(repo, `/issues/${pr}/comments`),
      );
      id = comments.find((c) => c.body.startsWith(commentMarker(branch)))?.id;
    }
    if (id !== undefined) {
      try {
        await client.request('PATCH', this.path(repo, `/issues/comments/${id}`), { body });
        this.commentIds.set(key, id);
        return;
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // deleted meanwhile: made anew
      }
    }
    const made = await client.request<{ id: number }>('POST', this.path(repo, `/issues/${pr}/comments`), { body });
    this.commentIds.set(key, made.id);
  }

  /** One `greenline:<state>` label on the PR, swapped as it moves; kept up to date once it carries one. */
  private async showLabel(repo: RepoBinding, pr: GiteaPull, stage: Stage, enabled: boolean): Promise<void> {
    const current = (pr.labels ?? []).filter((l) => l.name.startsWith(LABEL_PREFIX));
    if (!enabled && current.length === 0) return;
    const client = this.client(repo);
    const name = STATE_LABELS[stage];
    if (!current.some((l) => l.name === name)) {
      const id = await this.labelId(repo, name);
      await client.request('POST', this.path(repo, `/issues/${pr.number}/labels`), { labels: [id] });
    }
    for (const l of current) {
      if (l.name === name) continue;
      try {
        await client.request('DELETE', this.path(repo, `/issues/${pr.number}/labels/${l.id}`));
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // removed meanwhile
      }
    }
  }

  /** The repository label's id, the label made when missing. */
  private async labelId(repo: RepoBinding, name: string): Promise<number> {
    const client = this.client(repo);
    const found = (await client.all<{ id: number; name: string }>(this.path(repo, '/labels'))).find(
      (l) => l.name === name,
    );
    if (found) return found.id;
    const made = await client.request<{ id: number }>('POST', this.path(repo, '/labels'), {
      name,
      color: '#0e8a16',
      description: 'Where the pull request stands in the greenline merge queue',
    });
    return made.id;
  }
}

/**
 * The protection rule of `branch`: a rule naming it exactly, else the first whose glob matches
 * (`*` within a path segment, `**` across), as the forges choose.
 */
function ruleFor(rules: GiteaProtection[], branch: string): GiteaProtection | null {
  const nameOf = (r: GiteaProtection) => r.rule_name || r.branch_name || '';
  return rules.find((r) => nameOf(r) === branch) ?? rules.find((r) => globMatches(nameOf(r), branch)) ?? null;
}

function globMatches(glob: string, name: string): boolean {
  const re = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((lit) => lit.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re}$`).test(name);
}
