/**
 * The queue on each PR (onQueueEvent): a commit status `greenline (<branch>)` with the queue state and
 * a link to the dashboard, one queue comment kept up to date, state labels if enabled; and the
 * answers to comment commands (reply).
 */
import type { Logger } from 'pino';
import type { QueueEventPayload } from '../../engine/types.js';
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
import type { ForgePort, RepoBinding } from '../port.js';
import { hasStatus } from './client.js';
import type { GiteaPull, GiteaRepos } from './repos.js';

export interface GiteaPresenceOptions {
  repos: GiteaRepos;
  logger: Logger;
  /** Link of the status's Details and of comments; `{owner}`, `{repo}`, `{branch}`, `{pr}` replaced. */
  detailsUrl?: string;
}

export class GiteaPresence {
  /** The queue comment's id per repository, PR and queue, once found or made. */
  private readonly commentIds = new Map<string, number>();
  private readonly repos: GiteaRepos;

  constructor(private readonly opts: GiteaPresenceOptions) {
    this.repos = opts.repos;
  }

  async reply(repo: RepoBinding, number: number, body: string): Promise<void> {
    await this.repos.client(repo).request('POST', this.repos.path(repo, `/issues/${number}/comments`), { body });
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
        const pr = await this.repos.pull(repo, n);
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
    await this.repos.client(repo).request('POST', this.repos.path(repo, `/statuses/${sha}`), {
      context: checkName(branch),
      state: shown.state,
      description: shown.title,
      ...(link ? { target_url: link } : {}),
    });
  }

  /** The one queue comment of the PR, found by its marker and edited in place. */
  private async showComment(repo: RepoBinding, branch: string, pr: number, body: string): Promise<void> {
    const client = this.repos.client(repo);
    const key = `${repo.id}:${pr}:${branch}`;
    let id = this.commentIds.get(key);
    if (id === undefined) {
      const comments = await client.request<{ id: number; body: string }[]>(
        'GET',
        this.repos.path(repo, `/issues/${pr}/comments`),
      );
      id = comments.find((c) => c.body.startsWith(commentMarker(branch)))?.id;
    }
    if (id !== undefined) {
      try {
        await client.request('PATCH', this.repos.path(repo, `/issues/comments/${id}`), { body });
        this.commentIds.set(key, id);
        return;
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // deleted meanwhile: made anew
      }
    }
    const made = await client.request<{ id: number }>('POST', this.repos.path(repo, `/issues/${pr}/comments`), {
      body,
    });
    this.commentIds.set(key, made.id);
  }

  /** One `greenline:<state>` label on the PR, swapped as it moves; kept up to date once it carries one. */
  private async showLabel(repo: RepoBinding, pr: GiteaPull, stage: Stage, enabled: boolean): Promise<void> {
    const current = (pr.labels ?? []).filter((l) => l.name.startsWith(LABEL_PREFIX));
    if (!enabled && current.length === 0) return;
    const client = this.repos.client(repo);
    const name = STATE_LABELS[stage];
    if (!current.some((l) => l.name === name)) {
      const id = await this.labelId(repo, name);
      await client.request('POST', this.repos.path(repo, `/issues/${pr.number}/labels`), { labels: [id] });
    }
    for (const l of current) {
      if (l.name === name) continue;
      try {
        await client.request('DELETE', this.repos.path(repo, `/issues/${pr.number}/labels/${l.id}`));
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // removed meanwhile
      }
    }
  }

  /** The repository label's id, the label made when missing. */
  private async labelId(repo: RepoBinding, name: string): Promise<number> {
    const client = this.repos.client(repo);
    const found = (await client.all<{ id: number; name: string }>(this.repos.path(repo, '/labels'))).find(
      (l) => l.name === name,
    );
    if (found) return found.id;
    const made = await client.request<{ id: number }>('POST', this.repos.path(repo, '/labels'), {
      name,
      color: '#0e8a16',
      description: 'Where the pull request stands in the greenline merge queue',
    });
    return made.id;
  }
}
