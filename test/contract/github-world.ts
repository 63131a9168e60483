/**
 * The github world of the forge contract (forge-world.ts): the real service with the real github
 * forge talking to the fake GitHub API (test/forge/github/github-harness.ts). People and CI
 * act on the fake's repository and GitHub's webhook deliveries for what they did are posted, signed,
 * to the service's webhook endpoint; each payload starts from GitHub's own example of that event and
 * action (@octokit/webhooks-examples) with this repository's values put in.
 *
 * Commits of the fake carry no content: what the target holds is read from its history, a PR's
 * version being on it when its head is an ancestor of the target or the PR was merged into a commit
 * that is.
 */
import { createGitHubHarness, type GitHubHarness } from '../forge/github/github-harness.js';
import type { FakePull } from '../forge/github/fake-github-api.js';
import { gitHubExample } from '../forge/github/webhook-examples.js';
import type { CiStatus } from '../../src/forge/port.js';
import type { Json } from '../helpers/json.js';
import { CAPABILITIES, POLL_INTERVAL_MS, type ForgeWorld, type OpenPrOptions, type WorldKind } from './forge-world.js';

type Payload = Record<string, Json>;

/** The check run conclusion GitHub reports for a CI state. */
const CONCLUSION: Record<CiStatus['state'], string | null> = {
  pending: null,
  success: 'success',
  failure: 'failure',
  error: 'failure',
  cancelled: 'cancelled',
  skipped: 'skipped',
};

class GitHubWorld implements ForgeWorld {
  /** Commits of PR versions (`#1 v1`) and outside pushes (their label), in the order they were made. */
  private readonly made = new Map<string, string>();
  /** The base branch each stacked PR was opened on. */
  private readonly stackedOn = new Map<number, string>();
  private checkRunId = 5000;

  constructor(private readonly h: GitHubHarness) {}

  get service() {
    return this.h.app.service;
  }
  get ctx() {
    return this.h.ctx;
  }
  get key() {
    return this.h.key;
  }
  private get api() {
    return this.h.api;
  }
  private pull(n: number): FakePull {
    const pr = this.api.pulls.get(n);
    if (!pr) throw new Error(`no PR #${n}`);
    return pr;
  }

  /** This repository in a payload of `event`, as GitHub writes it (push payloads give times as numbers). */
  private repository(event: string, payload: Payload): Payload {
    const { owner, repo } = this.api;
    const r = (payload.repository ?? gitHubExample(event).repository) as Payload;
    return {
      ...r,
      name: repo,
      full_name: `${owner}/${repo}`,
      html_url: `https://github.com/${owner}/${repo}`,
      owner: { ...r.owner, login: owner, html_url: `https://github.com/${owner}` },
    };
  }

  private async deliver(event: string, payload: Payload): Promise<void> {
    const res = await this.h.deliver(event, { ...payload, repository: this.repository(event, payload) });
    if (res.status !== 200)
      throw new Error(`the ${event} delivery was answered ${res.status}: ${JSON.stringify(res.body)}`);
  }

  private async deliverPull(action: string, n: number, more: Payload = {}): Promise<void> {
    // The examples hold no `edited` payload: it is shaped as the others, with `changes` (given in `more`).
    const p = gitHubExample('pull_request', action === 'edited' ? 'opened' : action);
    const pr = this.pull(n);
    Object.assign(p.pull_request, {
      number: n,
      state: pr.state,
      merged: pr.merged,
      draft: pr.draft,
      title: pr.title,
      merge_commit_sha: pr.merge_commit_sha,
      labels: pr.labels.map((l) => ({ ...p.pull_request.labels?.[0], name: l.name })),
      head: { ...p.pull_request.head, sha: pr.head.sha, ref: pr.head.ref },
      base: { ...p.pull_request.base, sha: this.api.branches.get(pr.base.ref) ?? pr.base.sha, ref: pr.base.ref },
    });
    await this.deliver('pull_request', { ...p, action, number: n, ...more });
  }

  /** A commit on the target, announced by a push delivery. */
  private async moveTarget(label: string): Promise<string> {
    const before = this.api.branches.get('main')!;
    const sha = this.api.commit(before, label);
    this.api.branches.set('main', sha);
    const p = gitHubExample('push');
    await this.deliver('push', { ...p, ref: 'refs/heads/main', before, after: sha, created: false, deleted: false });
    return sha;
  }

  async openPr(n: number, opts: OpenPrOptions = {}): Promise<void> {
    const version = opts.version ?? 'v1';
    const head = this.api.commit(this.api.branches.get('main')!, `#${n} ${version}`, [`pr-${n}.txt`]);
    this.made.set(head, `#${n} ${version}`);
    this.api.openPr(n, {
      headSha: head,
      title: `Change ${n}`,
      draft: opts.draft ?? false,
      mergeable: !opts.conflicting,
      mergeable_state: opts.conflicting ? 'dirty' : opts.draft ? 'draft' : 'clean',
    });
    await this.deliverPull('opened', n);
    if (opts.conflicting) await this.moveTarget(`clashes with #${n}`);
  }

  /** PR `n` on PR `below`'s head branch, the two a GitHub native stack (created with `below` at its bottom). */
  async openStackedPr(n: number, below: number): Promise<void> {
    const lower = this.pull(below);
    const head = this.api.commit(lower.head.sha, `#${n} v1`);
    this.made.set(head, `#${n} v1`);
    lower.stack ??= {
      base: { ref: 'main', sha: this.api.branches.get('main')! },
      size: 1,
      position: 1,
      id: 1,
      number: 1,
    };
    lower.stack.size += 1;
    const pr = this.api.openPr(n, { headSha: head, title: `Change ${n}`, base: lower.head.ref });
    this.stackedOn.set(n, lower.head.ref);
    pr.stack = { ...lower.stack, position: lower.stack.position + 1 };
    await this.deliverPull('opened', n);
  }

  /** GitHub retargeted the layer when the one below merged (the fake does, as GitHub): it says so. */
  async retargetStacked(n: number): Promise<void> {
    const pr = this.pull(n);
    if (pr.base.ref !== 'main') throw new Error(`GitHub left PR #${n} on ${pr.base.ref} after the PR below merged`);
    const from = this.stackedOn.get(n)!;
    await this.deliverPull('edited', n, { changes: { base: { ref: { from }, sha: { from: pr.base.sha } } } });
  }

  async pushToPr(n: number, version: string): Promise<void> {
    const pr = this.pull(n);
    const before = pr.head.sha;
    pr.head.sha = this.api.commit(before, `#${n} ${version}`, [`pr-${n}.txt`]);
    this.made.set(pr.head.sha, `#${n} ${version}`);
    await this.deliverPull('synchronize', n, { before, after: pr.head.sha });
  }

  async pushToTarget(label: string): Promise<void> {
    this.made.set(await this.moveTarget(label), label);
  }

  async reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    await this.deliverCheckRun(this.addCheckRun(sha, context, state));
  }

  async reportCiUnheard(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    this.addCheckRun(sha, context, state);
  }

  async requireUpToDate(): Promise<void> {
    this.api.strictBranches.add('main');
    this.api.checksOnUpdatedHeads.set('build', 'success');
  }

  /** A check run on GitHub, as CI creates it. */
  private addCheckRun(sha: string, context: string, state: CiStatus['state']) {
    const run = {
      id: this.checkRunId++,
      name: context,
      head_sha: sha,
      status: state === 'pending' ? 'in_progress' : 'completed',
      conclusion: CONCLUSION[state],
    };
    this.api.checkRuns.push(run);
    return run;
  }

  /** GitHub's check_run delivery of a check run. */
  private async deliverCheckRun(run: ReturnType<GitHubWorld['addCheckRun']>): Promise<void> {
    const p = gitHubExample('check_run', 'completed');
    await this.deliver('check_run', {
      ...p,
      action: run.status === 'completed' ? 'completed' : 'created',
      check_run: {
        ...p.check_run,
        ...run,
        html_url: `https://github.com/${this.api.owner}/${this.api.repo}/runs/${run.id}`,
        details_url: `https://github.com/${this.api.owner}/${this.api.repo}/runs/${run.id}`,
        pull_requests: [],
      },
    });
  }

  async closePr(n: number): Promise<void> {
    this.pull(n).state = 'closed';
    await this.deliverPull('closed', n);
  }

  async resolveConflict(n: number): Promise<void> {
    await this.moveTarget(`no longer clashes with #${n}`);
    // GitHub computes mergeability again and tells nobody: no delivery.
    Object.assign(this.pull(n), { mergeable: true, mergeable_state: 'clean' });
  }

  async changeBase(n: number, branch: string): Promise<void> {
    const pr = this.pull(n);
    if (!this.api.branches.has(branch)) this.api.branches.set(branch, this.api.branches.get('main')!);
    const from = pr.base;
    pr.base = { ref: branch, sha: this.api.branches.get(branch)! };
    await this.deliverPull('edited', n, { changes: { base: { ref: { from: from.ref }, sha: { from: from.sha } } } });
  }

  async mergeOutside(n: number): Promise<void> {
    const { owner, repo, baseUrl } = this.api;
    const pr = this.pull(n);
    const before = this.api.branches.get('main')!;
    // Merged by a person on GitHub: through GitHub's merge endpoint.
    const res = await this.api.fetch(`${baseUrl}/repos/${owner}/${repo}/pulls/${n}/merge`, {
      method: 'PUT',
      body: JSON.stringify({ merge_method: 'squash', sha: pr.head.sha }),
    });
    if (res.status !== 200) throw new Error(`merging #${n} outside the queue: ${res.status}`);
    await this.deliverPull('closed', n);
    const p = gitHubExample('push');
    await this.deliver('push', { ...p, ref: 'refs/heads/main', before, after: pr.merge_commit_sha, deleted: false });
  }

  async setLabel(n: number, label: string, on: boolean, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    const pr = this.pull(n);
    pr.labels = on ? [...pr.labels, { name: label }] : pr.labels.filter((l) => l.name !== label);
    const p = gitHubExample('pull_request', on ? 'labeled' : 'unlabeled');
    // Labels can be set with triage access, which is not enough to command the queue.
    const sender = { ...p.sender, login: by === 'writer' ? 'ada' : 'trixie' };
    await this.deliverPull(on ? 'labeled' : 'unlabeled', n, { label: { ...p.label, name: label }, sender });
  }

  async comment(n: number, body: string, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    // A reader: someone who contributed before, whom GitHub reports as such (no write access).
    const [login, association] = by === 'writer' ? ['ada', 'OWNER'] : ['mallory', 'CONTRIBUTOR'];
    const p = gitHubExample('issue_comment', 'created');
    const { owner, repo } = this.api;
    const url = `https://api.github.com/repos/${owner}/${repo}/pulls/${n}`;
    await this.deliver('issue_comment', {
      ...p,
      issue: {
        ...p.issue,
        number: n,
        pull_request: {
          url,
          html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
          diff_url: `https://github.com/${owner}/${repo}/pull/${n}.diff`,
          patch_url: `https://github.com/${owner}/${repo}/pull/${n}.patch`,
        },
      },
      comment: {
        ...p.comment,
        body,
        author_association: association,
        user: { ...p.comment.user, login, type: 'User' },
      },
      sender: { ...p.sender, login, type: 'User' },
    });
  }

  async replies(n: number): Promise<string[]> {
    // The queue's own comment on the PR (its state, edited in place) is no answer.
    return this.api.comments.filter((c) => c.issue === n && !c.body.includes('<!-- greenline:')).map((c) => c.body);
  }

  async setDraft(n: number, draft: boolean): Promise<void> {
    Object.assign(this.pull(n), { draft, mergeable_state: draft ? 'draft' : 'clean' });
    await this.deliverPull(draft ? 'converted_to_draft' : 'ready_for_review', n);
  }

  async tick(): Promise<void> {
    this.h.clock.advance(POLL_INTERVAL_MS);
    await this.h.app.poller.pollOnce();
    await this.h.runEffects();
  }

  async targetSha(): Promise<string> {
    return this.api.branches.get('main')!;
  }

  async targetHolds(): Promise<string[]> {
    // What the target's content holds: merged, squashed or rebased, by a PR's head as made or as GitHub updated it.
    const content = new Set(this.api.treeOf(await this.targetSha()).split(','));
    const held = new Set<string>();
    for (const [sha, what] of this.made) if (content.has(sha)) held.add(what);
    // A PR's later version holds its earlier ones: the last made is the one on the target.
    const latest = new Map<string, string>();
    for (const what of this.made.values())
      if (held.has(what)) latest.set(what.startsWith('#') ? what.split(' ')[0]! : what, what);
    return [...latest.values()].sort();
  }

  close(): Promise<void> {
    return this.h.close();
  }
}

export const githubWorld: WorldKind = {
  name: 'github',
  // GitHub delivers again what failed: its checks are read again only when a run is quiet.
  capabilities: new Set(CAPABILITIES.filter((c) => c !== 'polledChecks')),
  async create() {
    const h = await createGitHubHarness();
    h.api.branches.set('main', h.api.commit(null, 'base'));
    h.api.requiredChecks.set('main', ['build']);
    h.api.collaborators.set('ada', 'admin');
    h.api.collaborators.set('trixie', 'triage');
    await h.app.service.createQueue(h.ctx, h.key, {});
    return new GitHubWorld(h);
  },
};
