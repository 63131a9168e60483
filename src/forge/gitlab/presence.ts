/**
 * The queue on each MR (onQueueEvent), in the words every forge shows: a commit status
 * `greenline (<branch>)` on the MR's head (on its source branch's ref; `running` while it is tested),
 * one note kept up to date (found by its marker, edited in place), state labels if enabled (added and
 * removed with the MR update's `add_labels`/`remove_labels`, which make a missing label); and the
 * answers to note commands (reply). A status GitLab already holds in that state answers 400 "Cannot
 * transition status": it is shown already.
 */
import type { Logger } from 'pino';
import type { QueueEventPayload } from '../../engine/types.js';
import {
  type CheckStage,
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
import { GitlabApiError, hasStatus } from './client.js';
import type { GitlabMr, GitlabProjects } from './projects.js';

/** A commit status state of GitLab for each stage's shown state. */
const STATE: Record<string, string> = { pending: 'pending', success: 'success', failure: 'failed', error: 'canceled' };

export class GitlabPresence {
  private readonly noteIds = new Map<string, number>();

  constructor(
    private readonly projects: GitlabProjects,
    private readonly logger: Logger,
    private readonly detailsUrl?: string,
  ) {}

  async reply(repo: RepoBinding, iid: number, body: string): Promise<void> {
    await this.projects
      .client(repo)
      .request('POST', this.projects.path(repo, `/merge_requests/${iid}/notes`), { body });
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
        const mr = await this.projects.mr(repo, n);
        if (!mr) continue;
        const text = describeStage(stage, event, queue.reasons?.get(n), 'GitLab') + outlookText(queue.outlook?.get(n));
        const link = detailsLink(this.detailsUrl, repo.repo, targetBranch, n);
        if (config.statusCheckEnabled) await this.showStatus(repo, targetBranch, mr, stage, link);
        if (config.commentsEnabled)
          await this.showNote(repo, targetBranch, n, commentBody(targetBranch, stage, text, link));
        await this.showLabel(repo, mr, stage, config.stateLabelsEnabled);
      } catch (err) {
        this.logger.warn({ err, event: event.type, pr: n }, 'could not show a queue event on GitLab');
      }
    }
  }

  /**
   * greenline's status on an MR about to be merged through the merge API turned to "Tests passed:
   * merging", when it shows one: the status is a job of the MR head's pipeline, and GitLab's
   * "Pipelines must succeed" would refuse the merge while it is still running.
   */
  async showMerging(repo: RepoBinding, branch: string, mr: GitlabMr): Promise<void> {
    const shown = await this.projects
      .client(repo)
      .request<{ name: string }[]>(
        'GET',
        this.projects.path(repo, `/repository/commits/${mr.sha}/statuses`),
        undefined,
        {
          ref: mr.source_branch,
          name: checkName(branch),
        },
      );
    if (shown.length > 0) await this.showStatus(repo, branch, mr, 'merging', null);
  }

  private async showStatus(
    repo: RepoBinding,
    branch: string,
    mr: GitlabMr,
    stage: CheckStage,
    link: string | null,
  ): Promise<void> {
    const shown = SHOWN[stage];
    try {
      await this.projects.client(repo).request('POST', this.projects.path(repo, `/statuses/${mr.sha}`), {
        state: shown.status === 'in_progress' ? 'running' : STATE[shown.state],
        name: checkName(branch),
        ref: mr.source_branch,
        description: shown.title,
        ...(link ? { target_url: link } : {}),
      });
    } catch (err) {
      if (!(err instanceof GitlabApiError && err.status === 400 && /Cannot transition status/i.test(err.gitlabMessage)))
        throw err;
    }
  }

  private async showNote(repo: RepoBinding, branch: string, iid: number, body: string): Promise<void> {
    const client = this.projects.client(repo);
    const key = `${repo.id}:${iid}:${branch}`;
    let id = this.noteIds.get(key);
    if (id === undefined) {
      const notes = await client.all<{ id: number; body: string }>(
        this.projects.path(repo, `/merge_requests/${iid}/notes`),
      );
      id = notes.find((c) => c.body.startsWith(commentMarker(branch)))?.id;
    }
    if (id !== undefined) {
      try {
        await client.request('PUT', this.projects.path(repo, `/merge_requests/${iid}/notes/${id}`), { body });
        this.noteIds.set(key, id);
        return;
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // deleted meanwhile: made anew
      }
    }
    const made = await client.request<{ id: number }>(
      'POST',
      this.projects.path(repo, `/merge_requests/${iid}/notes`),
      { body },
    );
    this.noteIds.set(key, made.id);
  }

  private async showLabel(repo: RepoBinding, mr: GitlabMr, stage: Stage, enabled: boolean): Promise<void> {
    const current = (mr.labels ?? []).filter((l) => l.startsWith(LABEL_PREFIX));
    if (!enabled && current.length === 0) return;
    const name = STATE_LABELS[stage];
    const remove = current.filter((l) => l !== name);
    if (current.includes(name) && remove.length === 0) return;
    await this.projects.client(repo).request('PUT', this.projects.path(repo, `/merge_requests/${mr.iid}`), {
      add_labels: [name],
      ...(remove.length > 0 ? { remove_labels: remove } : {}),
    });
  }
}
