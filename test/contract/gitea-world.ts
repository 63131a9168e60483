/**
 * The gitea and forgejo worlds of the forge contract (forge-world.ts): the real service over in-memory
 * SQLite with the real gitea forge talking to the fake of each dialect
 * (test/forge/gitea/fake-gitea-api.ts: a real HTTP server over a real bare repository,
 * every request checked against the dialect's Swagger document), git going over its HTTP protocol.
 * A PR's commit writes `pr-<n>.txt` = its version; a push outside the queue writes
 * `outside/<label>.txt`; what the target holds is read from those files. The target's branch
 * protection requires the status `build`.
 *
 * Greenline learns of PR changes by polling (`tick`), the path Forgejo's missing `status` event
 * leaves for every forge: CI posts its statuses on the forge and reports them to the service's status
 * API as external CI does; a status posted on the forge alone (`reportCiUnheard`) is read from the
 * forge at the next poll (ForgePort.pollsChecks). Labels and comment commands arrive by webhook: the fake posts its
 * signed deliveries to the service's `POST /webhooks/gitea`. A PR is a draft by its title (`WIP:`),
 * which greenline sees when it reads the PR.
 */
import { createGitForge } from '../../src/forge/git/index.js';
import { GiteaForge, giteaForge } from '../../src/forge/gitea/index.js';
import { readGiteaDelivery } from '../../src/forge/gitea/webhook-events.js';
import { buildHttpApp } from '../../src/api/build-app.js';
import type { App } from '../../src/app/create-app.js';
import type { ForgeWebhooks } from '../../src/app/observing/forge-webhooks.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { git } from '../../src/git/git.js';
import type { ManualClock } from '../../src/lib/clock.js';
import type { CiStatus } from '../../src/forge/port.js';
import { APP_LINES, appWithLine } from '../helpers/git-fixture.js';
import { type Dialect, FakeGiteaApi, type StatusState } from '../forge/gitea/fake-gitea-api.js';
import { type ServiceOverForge, serviceOverForge, silentLogger } from '../helpers/service-over-forge.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { type ForgeWorld, type OpenPrOptions, POLL_INTERVAL_MS, type WorldKind } from './forge-world.js';

/** The commit status state a CI state is posted as (the forges have no `cancelled`). */
const POSTED: Record<CiStatus['state'], StatusState> = {
  pending: 'pending',
  success: 'success',
  failure: 'failure',
  error: 'error',
  cancelled: 'error',
  skipped: 'skipped',
};

/** The secret of the forge's webhook to the service. */
const SECRET = 'gitea-world-secret';

/** How the world reaches the service's webhook endpoint and its deliveries' worker. */
interface Receiver {
  webhooks: ForgeWebhooks;
  close(): Promise<void>;
}

class GiteaWorld implements ForgeWorld {
  constructor(
    private readonly fake: FakeGiteaApi,
    private readonly dataDir: string,
    private readonly over: ServiceOverForge,
    private readonly receiver: Receiver,
    readonly key: QueueKey,
  ) {}

  private get app(): App {
    return this.over.app;
  }

  private get clock(): ManualClock {
    return this.over.clock;
  }

  get ctx(): AuthContext {
    return this.over.ctx;
  }

  /** The forge's delivery of `eventType` posted, signed, to the service; then processed. */
  private async deliver(eventType: string, payload: Record<string, unknown>): Promise<void> {
    for (const answer of await this.fake.deliver(eventType, payload))
      if (answer.status !== 200)
        throw new Error(`the ${eventType} delivery was answered ${answer.status}: ${answer.body}`);
    await this.receiver.webhooks.drain();
  }

  async setLabel(n: number, label: string, on: boolean, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    const pr = this.fake.pull(n);
    const id = this.fake.label(label);
    pr.labels = on ? [...pr.labels.filter((l) => l !== id), id] : pr.labels.filter((l) => l !== id);
    const action = pr.labels.length > 0 ? 'label_updated' : 'label_cleared';
    const payload = await this.fake.pullRequestPayload(action, n, { sender: this.fake.userJson(this.person(by)) });
    await this.deliver('pull_request_label', payload);
  }

  /** A person with write access, or one who may only read the repository. */
  private person(by: 'writer' | 'reader'): string {
    const login = by === 'reader' ? 'rex' : 'ada';
    this.fake.users.set(login, by === 'reader' ? 'read' : 'write');
    return login;
  }

  async comment(n: number, body: string, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    const comment = this.fake.addComment(n, body, this.person(by));
    await this.deliver('issue_comment', this.fake.commentPayload(n, comment));
  }

  async replies(n: number): Promise<string[]> {
    return this.fake.comments
      .filter((c) => c.issue === n && c.user === this.fake.tokenUser && !c.body.startsWith('<!-- greenline:'))
      .map((c) => c.body);
  }

  get service() {
    return this.app.service;
  }

  /** A commit of `files` on the target, pushed to it. */
  private async moveTarget(files: Record<string, string>, message: string): Promise<void> {
    await this.fake.setBranch('main', await this.fake.commit(await this.targetSha(), files, message));
  }

  async openPr(n: number, opts: OpenPrOptions = {}): Promise<void> {
    const files: Record<string, string> = { [`pr-${n}.txt`]: `${opts.version ?? 'v1'}\n` };
    if (opts.conflicting) files['src/app.txt'] = appWithLine(1, `line one as PR ${n} has it`);
    const head = await this.fake.commit(await this.targetSha(), files, `Change ${n}`);
    await this.fake.openPr(n, { headSha: head, title: `${opts.draft ? 'WIP: ' : ''}Change ${n}` });
    if (opts.conflicting)
      await this.moveTarget({ 'src/app.txt': appWithLine(1, 'line one as main has it') }, `Clash with #${n}`);
  }

  /** PR `n` on PR `below`'s head branch, its change on top of `below`'s. */
  async openStackedPr(n: number, below: number): Promise<void> {
    const head = await this.fake.commit(await this.fake.headOf(below), { [`pr-${n}.txt`]: 'v1\n' }, `Change ${n}`);
    await this.fake.openPr(n, { headSha: head, base: this.fake.pull(below).head, title: `Change ${n}` });
  }

  /** Gitea does not retarget a PR whose base was merged: its author does. */
  async retargetStacked(n: number): Promise<void> {
    this.fake.pull(n).base = 'main';
  }

  async pushToPr(n: number, version: string): Promise<void> {
    const head = await this.fake.headOf(n);
    await this.fake.pushToPr(n, await this.fake.commit(head, { [`pr-${n}.txt`]: `${version}\n` }, `Change ${n}`));
  }

  async pushToTarget(label: string): Promise<void> {
    await this.moveTarget({ [`outside/${label}.txt`]: `${label}\n` }, label);
  }

  async reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    this.fake.addStatus(sha, context, POSTED[state]);
    await this.service.reportStatus(this.ctx, { repo: this.key.repo, sha, status: { context, state } });
  }

  async reportCiUnheard(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    this.fake.addStatus(sha, context, POSTED[state]);
  }

  async setDraft(n: number, draft: boolean): Promise<void> {
    const pr = this.fake.pull(n);
    const title = pr.title.replace(/^\s*(WIP:|\[WIP\])\s*/i, '');
    pr.title = draft ? `WIP: ${title}` : title;
  }

  async closePr(n: number): Promise<void> {
    this.fake.closePr(n);
  }

  async resolveConflict(n: number): Promise<void> {
    await this.moveTarget({ 'src/app.txt': APP_LINES }, `No longer clash with #${n}`);
  }

  async changeBase(n: number, branch: string): Promise<void> {
    if (!(await this.fake.branchSha(branch))) await this.fake.setBranch(branch, await this.targetSha());
    this.fake.pull(n).base = branch;
  }

  async mergeOutside(n: number): Promise<void> {
    await this.fake.mergeOnForge(n);
  }

  async tick(): Promise<void> {
    this.clock.advance(POLL_INTERVAL_MS);
    await this.app.poller.pollOnce();
    await this.app.runner.drain();
  }

  async targetSha(): Promise<string> {
    const sha = await this.fake.branchSha('main');
    if (!sha) throw new Error('main does not exist');
    return sha;
  }

  async targetHolds(): Promise<string[]> {
    const files = (await git(['ls-tree', '-r', '--name-only', 'main'], { cwd: this.fake.bare })).split('\n');
    const held: string[] = [];
    for (const file of files) {
      const pr = /^pr-(\d+)\.txt$/.exec(file);
      const outside = /^outside\/(.+)\.txt$/.exec(file);
      if (pr) held.push(`#${pr[1]} ${(await this.fake.fileAt('main', file))!.trim()}`);
      if (outside) held.push(outside[1]!);
    }
    return held.sort();
  }

  async close(): Promise<void> {
    await this.receiver.close();
    await this.over.close();
    // A scenario may end with a PR still testing: its test branch is the run's, not a leftover.
    const branches = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/greenline-merge/'], {
      cwd: this.fake.bare,
    });
    for (const ref of branches.split('\n').filter(Boolean))
      await git(['update-ref', '-d', ref], { cwd: this.fake.bare });
    await this.fake.close();
    await removeTempDir(this.dataDir);
  }
}

function giteaWorldOf(dialect: Dialect): WorldKind {
  return {
    name: dialect,
    capabilities: new Set([
      'close',
      'conflicts',
      'baseChange',
      'outsideMerge',
      'labels',
      'comments',
      'drafts',
      'permissions',
      'stacks',
      'changedFiles',
      'polledChecks',
    ]),
    async create() {
      // Gitea as it was tried for real (1.26: the merge form binds `MergeCommitID`), set up as
      // docs/gitea.md says: manual merge allowed.
      const fake = await FakeGiteaApi.start(dialect, dialect === 'gitea' ? { version: '1.26.1' } : {});
      fake.allowManualMerge = true;
      await fake.setBranch(
        'main',
        await fake.commit(await fake.branchSha('main'), { 'src/app.txt': APP_LINES }, 'Add the app'),
      );
      fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['build'] });
      const dataDir = await makeTempDir(`greenline-${dialect}-world-`);
      const s = await serviceOverForge({
        forge: 'gitea',
        adapter: () =>
          new GiteaForge({
            url: fake.url,
            token: fake.token,
            // Every read fetches: the scenarios push to the forge between reads.
            git: createGitForge({ dataDir, logger: silentLogger, fetchTtlMs: 0 }),
            logger: silentLogger,
          }),
        connect: { slug: '127.0.0.1/acme/web', remote: fake.url },
        pollIntervalMs: POLL_INTERVAL_MS,
      });
      const key: QueueKey = { repo: { host: '127.0.0.1', owner: 'acme', name: 'web' }, targetBranch: 'main' };
      await s.app.service.createQueue(s.ctx, key, {});
      const webhooks = s.webhooks({ translate: readGiteaDelivery });
      const http = await buildHttpApp({
        service: s.app.service,
        logger: false,
        enumCase: 'upper',
        forgeWebhooks: [{ webhook: giteaForge.webhook!, secret: SECRET, receive: webhooks.receive }],
      });
      fake.hooks.push({ url: `${await http.listen({ port: 0, host: '127.0.0.1' })}/webhooks/gitea`, secret: SECRET });
      const receiver = { webhooks, close: () => http.close() };
      return new GiteaWorld(fake, dataDir, s, receiver, key);
    },
  };
}

export const giteaWorld = giteaWorldOf('gitea');
export const forgejoWorld = giteaWorldOf('forgejo');
