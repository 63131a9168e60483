/**
 * What a queue shows on GitHub as its PRs move (settings of contract §4):
 * - statusCheckEnabled: a check run `greenline (<branch>)` on the PR head — queued, in progress,
 *   then success (merged), failure (failed, with the reason) or cancelled — with a Details link.
 *   GitHub keeps a completed check run as it is, so each new attempt (the PR submitted again after
 *   it failed or was cancelled) gets a new check run, and the latest one shows where the PR stands.
 *   Only a GitHub App may create check runs; with a token the same is a commit status.
 * - commentsEnabled: one comment per PR and queue, found by a hidden marker and edited in place.
 * - createPrsForTestingBranches: a PR from each test branch to the target branch (a draft, or a
 *   ready PR where the repository's plan has no drafts), titled from a template, opened when its run
 *   starts testing (so CI triggered by pull requests runs on it) and closed when the branch is
 *   deleted (deleteBranch, branches.ts).
 * Comments, check runs and test PRs are created once even when GitHub answers 5xx (create-once.ts).
 * - stateLabelsEnabled: one label `greenline:<state>` on the PR for its state in the queue, swapped
 *   as it moves; the last one stays when it leaves. A PR that carries one keeps being updated after
 *   the setting is turned off (contract §4), so no PR is left with a stale state label.
 * Best effort: a failure is logged and the queue goes on.
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
import { allPages, failureOf, hasStatus, type GitHubClients, type RepoApi } from './client.js';
import { createOnce, NOT_RETRIED } from './create-once.js';
import { fetchPull, type GitHubPull } from './pulls.js';

/** A check run greenline shows: its id, and its conclusion once completed (null before). */
interface ShownCheckRun {
  id: number;
  conclusion: string | null;
}

/** The most recent check run named `name` on the commit, if any. */
async function latestCheckRun({ api, loc }: RepoApi, sha: string, name: string): Promise<ShownCheckRun | null> {
  const { data } = await api.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
    ...loc,
    ref: sha,
    check_name: name,
    filter: 'latest',
  });
  const run = data.check_runs[0];
  return run
    ? { id: Number(run.id), conclusion: run.status === 'completed' ? (run.conclusion ?? 'neutral') : null }
    : null;
}

export interface PresenceDeps {
  clients: GitHubClients;
  logger: Logger;
  detailsUrl?: string;
  /** Title template of test PRs (createPrsForTestingBranches): `{prs}`, `{branch}`. */
  testPrTitle: string;
}

export class Presence {
  /** Comment id per repo, PR and queue, once found or created. */
  private readonly comments = new Map<string, number>();
  /** The latest check run per repo, head sha and queue: its id and conclusion (null while not completed). */
  private readonly checkRuns = new Map<string, ShownCheckRun>();
  /** Runs whose test PR is open (or was refused as a duplicate). */
  private readonly draftsOpened = new Set<string>();

  constructor(private readonly deps: PresenceDeps) {}

  async onQueueEvent(
    repo: RepoBinding,
    queue: Parameters<NonNullable<ForgePort['onQueueEvent']>>[1],
    event: QueueEventPayload,
  ): Promise<void> {
    const { config } = queue;
    const stage = event.type.split('.')[1] as Stage;
    try {
      if (event.type.endsWith('.testing') && config.createPrsForTestingBranches && event.runId && event.testBranch) {
        await this.openTestPr(repo, queue.targetBranch, event);
      }
      if (!event.type.startsWith('pull_request.')) return;
      for (const n of event.prNumbers) {
        const pr = await fetchPull(await this.deps.clients.repoApi(repo), n);
        if (!pr) continue;
        const text = describeStage(stage, event, queue.reasons?.get(n), 'GitHub') + outlookText(queue.outlook?.get(n));
        const link = detailsLink(this.deps.detailsUrl, repo.repo, queue.targetBranch, n);
        if (config.statusCheckEnabled) await this.showCheck(repo, queue.targetBranch, pr.head.sha, stage, text, link);
        if (config.commentsEnabled) await this.showComment(repo, queue.targetBranch, n, stage, text, link);
        await this.showLabel(repo, pr, stage, config.stateLabelsEnabled);
      }
    } catch (err) {
      this.deps.logger.warn({ err, event: event.type, prs: event.prNumbers }, 'could not show a queue event on GitHub');
    }
  }

  /**
   * greenline's own check as passed on these commits (the tested PR heads, the tested commit): where
   * the target requires that check, GitHub merges nothing without it. Failures are thrown: the merge
   * would be refused anyway.
   */
  async showPassed(repo: RepoBinding, targetBranch: string, shas: string[]): Promise<void> {
    const text = 'Its tests passed; the queue is merging it.';
    for (const sha of new Set(shas)) await this.showCheck(repo, targetBranch, sha, 'merging', text, null);
  }

  private async showCheck(
    repo: RepoBinding,
    branch: string,
    sha: string,
    stage: CheckStage,
    text: string,
    link: string | null,
  ): Promise<void> {
    const { api, loc } = await this.deps.clients.repoApi(repo);
    const shown = SHOWN[stage];
    const name = checkName(branch);
    if (!this.deps.clients.canCreateCheckRuns) {
      await api.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
        ...loc,
        sha,
        context: name,
        state: shown.state,
        description: `${shown.title}`.slice(0, 140),
        ...(link ? { target_url: link } : {}),
      });
      return;
    }
    const body = {
      status: shown.status,
      ...(shown.conclusion ? { conclusion: shown.conclusion } : {}),
      output: { title: shown.title, summary: text },
      ...(link ? { details_url: link } : {}),
    };
    const key = `${repo.id}:${sha}:${branch}`;
    const known = this.checkRuns.get(key) ?? (await latestCheckRun({ api, loc }, sha, name));
    // GitHub keeps a completed check run's status and conclusion for good: a new attempt (queued again,
    // or a new conclusion) gets a new check run; the same conclusion again only updates the text.
    if (known && (known.conclusion === null || known.conclusion === (shown.conclusion ?? null))) {
      const { status: _s, conclusion: _c, ...textOnly } = body;
      await api.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', {
        ...loc,
        check_run_id: known.id,
        ...(known.conclusion === null ? body : textOnly),
      });
      this.checkRuns.set(key, { id: known.id, conclusion: shown.conclusion ?? null });
      return;
    }
    const created = await createOnce(
      this.deps.logger,
      `check run ${name} on ${sha}`,
      async () => {
        const { data } = await api.request('POST /repos/{owner}/{repo}/check-runs', {
          ...loc,
          name,
          head_sha: sha,
          ...body,
          request: NOT_RETRIED,
        });
        return Number(data.id);
      },
      async () => {
        const latest = await latestCheckRun({ api, loc }, sha, name);
        return latest && latest.id !== known?.id ? latest.id : null;
      },
    );
    this.checkRuns.set(key, { id: created, conclusion: shown.conclusion ?? null });
  }

  private async showComment(
    repo: RepoBinding,
    branch: string,
    pr: number,
    stage: Stage,
    text: string,
    link: string | null,
  ): Promise<void> {
    const { api, loc } = await this.deps.clients.repoApi(repo);
    const marker = commentMarker(branch);
    const body = commentBody(branch, stage, text, link);
    const key = `${repo.id}:${pr}:${branch}`;
    const findComment = async (): Promise<number | null> => {
      const comments = await allPages(
        api,
        api.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
          ...loc,
          issue_number: pr,
          per_page: 100,
        }),
        (data) => data,
      );
      const found = comments.find((c) => c.body?.startsWith(marker));
      return found ? Number(found.id) : null;
    };
    let id = this.comments.get(key) ?? (await findComment());
    if (id === null) {
      id = await createOnce(
        this.deps.logger,
        `comment on #${pr}`,
        async () => {
          const { data } = await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            ...loc,
            issue_number: pr,
            body,
            request: NOT_RETRIED,
          });
          return Number(data.id);
        },
        findComment,
      );
    } else {
      await api.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...loc, comment_id: id, body });
    }
    this.comments.set(key, id);
  }

  private async showLabel(repo: RepoBinding, pr: GitHubPull, stage: Stage, enabled: boolean): Promise<void> {
    const current = (pr.labels ?? []).map((l) => l.name).filter((name) => name.startsWith(LABEL_PREFIX));
    if (!enabled && current.length === 0) return;
    const { api, loc: repoLoc } = await this.deps.clients.repoApi(repo);
    const loc = { ...repoLoc, issue_number: pr.number };
    const label = STATE_LABELS[stage];
    if (!current.includes(label))
      await api.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...loc, labels: [label] });
    for (const name of current) {
      if (name === label) continue;
      try {
        await api.request('DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}', { ...loc, name });
      } catch (err) {
        if (!hasStatus(err, 404)) throw err; // removed meanwhile
      }
    }
  }

  /**
   * The test PR of a run's branch: a draft, or a ready PR where GitHub refuses drafts (private
   * repositories on the Free plan). A PR for the branch that exists already is the one; any other
   * refusal is logged with GitHub's message.
   */
  private async openTestPr(repo: RepoBinding, targetBranch: string, event: QueueEventPayload): Promise<void> {
    const key = `${repo.id}:${event.runId}`;
    if (this.draftsOpened.has(key)) return;
    const { api, loc } = await this.deps.clients.repoApi(repo);
    const head = event.testBranch!;
    const prs = event.prNumbersInBatch.map((n) => `#${n}`).join(', ');
    const pr = {
      ...loc,
      head,
      base: targetBranch,
      title: testPrTitle(this.deps.testPrTitle, { prs, branch: targetBranch }),
      body: `Test branch of greenline merge queue run \`${event.runId}\` (${prs} on \`${targetBranch}\`). It is closed when the run ends; do not merge it.`,
    };
    const open = (draft: boolean) =>
      createOnce(
        this.deps.logger,
        `test PR of ${head}`,
        async () => {
          await api.request('POST /repos/{owner}/{repo}/pulls', { ...pr, draft, request: NOT_RETRIED });
          return true;
        },
        async () => {
          const { data } = await api.request('GET /repos/{owner}/{repo}/pulls', {
            ...loc,
            head: `${loc.owner}:${head}`,
            state: 'open',
          });
          return data.length > 0 ? true : null;
        },
      );
    /** GitHub's message of a 422 (a refusal of the PR itself); null for any other failure. */
    const refusal = (err: unknown): string | null => (hasStatus(err, 422) ? failureOf(err).message : null);
    try {
      await open(true).catch((err: unknown) => {
        if (!/draft pull requests are not supported/i.test(refusal(err) ?? '')) throw err;
        return open(false); // the repository's plan has no drafts: a ready PR
      });
    } catch (err) {
      const message = refusal(err);
      if (message === null) throw err;
      if (!/a pull request already exists/i.test(message)) {
        this.deps.logger.warn(
          { head, base: targetBranch, message },
          `GitHub refused the test PR of ${head}: ${message}`,
        );
        return;
      }
    }
    this.draftsOpened.add(key);
  }
}

/** The title template with `{prs}` (`#12, #13`) and `{branch}` (the target branch) replaced. */
export function testPrTitle(template: string, values: { prs: string; branch: string }): string {
  return template.replaceAll('{prs}', values.prs).replaceAll('{branch}', values.branch);
}
