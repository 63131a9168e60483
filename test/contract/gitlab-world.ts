/**
 * The gitlab world of the forge contract (forge-world.ts): the real service over in-memory SQLite with
 * the real gitlab forge talking to the fake GitLab (test/forge/gitlab/fake-gitlab-api.ts: a real HTTP
 * server over a real bare repository, every request checked against GitLab's OpenAPI description),
 * git going over its HTTP protocol. The project is in a subgroup (`acme/tools/web`), so that the
 * contract runs on the path GitLab teams most often have. A PR's commit writes `pr-<n>.txt` = its
 * version; a push outside the queue writes `outside/<label>.txt`; what the target holds is read from
 * those files. The repository requires the status `build` (GitLab Free has no per-status rule).
 *
 * Greenline learns of MR changes by polling (`tick`); CI reports its jobs on the fake and to the
 * service's status API as external CI does; a job reported on GitLab alone (`reportCiUnheard`) is
 * read from GitLab once the run is quiet. Labels and note commands arrive by webhook: the fake posts
 * deliveries signed with the hook's signing token (Standard Webhooks) to `POST /webhooks/gitlab`. An
 * MR is a draft by its title (`Draft:`).
 */
import { buildHttpApp } from '../../src/api/build-app.js';
import type { App } from '../../src/app/create-app.js';
import type { ForgeWebhooks } from '../../src/app/observing/forge-webhooks.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { createGitForge } from '../../src/forge/git/index.js';
import { GitlabForge, gitlabForge } from '../../src/forge/gitlab/index.js';
import { readGitlabDelivery } from '../../src/forge/gitlab/webhook-events.js';
import type { CiStatus } from '../../src/forge/port.js';
import { git } from '../../src/git/git.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { ACCESS, FakeGitlabApi, type JobState } from '../forge/gitlab/fake-gitlab-api.js';
import { GitlabDeliveries } from '../forge/gitlab/fake-gitlab-deliveries.js';
import { APP_LINES, appWithLine } from '../helpers/git-fixture.js';
import { type ServiceOverForge, serviceOverForge, silentLogger } from '../helpers/service-over-forge.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';
import { type ForgeWorld, type OpenPrOptions, POLL_INTERVAL_MS, type WorldKind } from './forge-world.js';

/** The job state a CI state is reported as. */
const REPORTED: Record<CiStatus['state'], JobState> = {
  pending: 'running',
  success: 'success',
  failure: 'failed',
  error: 'failed',
  cancelled: 'canceled',
  skipped: 'skipped',
};

/** The hook's signing token (`whsec_` and 32 bytes in base64), greenline's gitlabWebhookSecret. */
const SIGNING_TOKEN = `whsec_${Buffer.alloc(32, 42).toString('base64')}`;

const DRAFT = /^\s*Draft:\s*/i;

class GitlabWorld implements ForgeWorld {
  constructor(
    private readonly fake: FakeGitlabApi,
    private readonly deliveries: GitlabDeliveries,
    private readonly dataDir: string,
    private readonly over: ServiceOverForge,
    private readonly receiver: { webhooks: ForgeWebhooks; close(): Promise<void> },
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

  get service() {
    return this.app.service;
  }

  private async deliver(event: string, payload: Record<string, unknown>): Promise<void> {
    for (const answer of await this.deliveries.deliver(event, payload))
      if (answer.status !== 200) throw new Error(`the ${event} delivery was answered ${answer.status}: ${answer.body}`);
    await this.receiver.webhooks.drain();
  }

  /** A Developer, or (reader) a Reporter, who may label MRs but not command the queue. */
  private person(by: 'writer' | 'reader'): string {
    const username = by === 'reader' ? 'rex' : 'ada';
    this.fake.members.set(username, by === 'reader' ? ACCESS.reporter : ACCESS.developer);
    return username;
  }

  async setLabel(n: number, label: string, on: boolean, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    const mr = this.fake.mr(n);
    const previous = [...mr.labels];
    mr.labels = on ? [...mr.labels.filter((l) => l !== label), label] : mr.labels.filter((l) => l !== label);
    const payload = await this.deliveries.mergeRequest(
      'update',
      n,
      this.person(by),
      this.deliveries.labelChanges(n, previous),
    );
    await this.deliver('Merge Request Hook', payload);
  }

  async comment(n: number, body: string, by: 'writer' | 'reader' = 'writer'): Promise<void> {
    const note = this.fake.addNote(n, body, this.person(by));
    await this.deliver('Note Hook', this.deliveries.note(n, note));
  }

  async replies(n: number): Promise<string[]> {
    return this.fake.notes
      .filter((c) => c.iid === n && c.author === this.fake.tokenUser && !c.body.startsWith('<!-- greenline:'))
      .map((c) => c.body);
  }

  private async moveTarget(files: Record<string, string>, message: string): Promise<void> {
    await this.fake.repo.setBranch('main', await this.fake.repo.commit(await this.targetSha(), files, message));
  }

  async openPr(n: number, opts: OpenPrOptions = {}): Promise<void> {
    const files: Record<string, string> = { [`pr-${n}.txt`]: `${opts.version ?? 'v1'}\n` };
    if (opts.conflicting) files['src/app.txt'] = appWithLine(1, `line one as PR ${n} has it`);
    const head = await this.fake.repo.commit(await this.targetSha(), files, `Change ${n}`);
    await this.fake.openMr(n, { headSha: head, title: `${opts.draft ? 'Draft: ' : ''}Change ${n}` });
    if (opts.conflicting)
      await this.moveTarget({ 'src/app.txt': appWithLine(1, 'line one as main has it') }, `Clash with !${n}`);
  }

  async pushToPr(n: number, version: string): Promise<void> {
    const head = await this.fake.headOf(n);
    await this.fake.pushToMr(n, await this.fake.repo.commit(head, { [`pr-${n}.txt`]: `${version}\n` }, `Change ${n}`));
  }

  async pushToTarget(label: string): Promise<void> {
    await this.moveTarget({ [`outside/${label}.txt`]: `${label}\n` }, label);
  }

  async reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    await this.fake.reportJob(sha, context, REPORTED[state]);
    await this.service.reportStatus(this.ctx, { repo: this.key.repo, sha, status: { context, state } });
  }

  async reportCiUnheard(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    await this.fake.reportJob(sha, context, REPORTED[state]);
  }

  async setDraft(n: number, draft: boolean): Promise<void> {
    const mr = this.fake.mr(n);
    const title = mr.title.replace(DRAFT, '');
    mr.title = draft ? `Draft: ${title}` : title;
  }

  async closePr(n: number): Promise<void> {
    this.fake.closeMr(n);
  }

  async resolveConflict(n: number): Promise<void> {
    await this.moveTarget({ 'src/app.txt': APP_LINES }, `No longer clash with !${n}`);
  }

  async changeBase(n: number, branch: string): Promise<void> {
    if (!(await this.fake.repo.branchSha(branch))) await this.fake.repo.setBranch(branch, await this.targetSha());
    this.fake.mr(n).target_branch = branch;
  }

  async mergeOutside(n: number): Promise<void> {
    await this.fake.mergeOnGitlab(n);
  }

  async tick(): Promise<void> {
    this.clock.advance(POLL_INTERVAL_MS);
    await this.app.poller.pollOnce();
    await this.app.runner.drain();
  }

  async targetSha(): Promise<string> {
    const sha = await this.fake.repo.branchSha('main');
    if (!sha) throw new Error('main does not exist');
    return sha;
  }

  async targetHolds(): Promise<string[]> {
    const files = (await git(['ls-tree', '-r', '--name-only', 'main'], { cwd: this.fake.repo.bare })).split('\n');
    const held: string[] = [];
    for (const file of files) {
      const pr = /^pr-(\d+)\.txt$/.exec(file);
      const outside = /^outside\/(.+)\.txt$/.exec(file);
      if (pr) held.push(`#${pr[1]} ${(await this.fake.repo.fileAt('main', file))!.trim()}`);
      if (outside) held.push(outside[1]!);
    }
    return held.sort();
  }

  async close(): Promise<void> {
    await this.receiver.close();
    await this.over.close();
    // A scenario may end with a PR still testing: its test branch is the run's, not a leftover.
    const branches = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/greenline-merge/'], {
      cwd: this.fake.repo.bare,
    });
    for (const ref of branches.split('\n').filter(Boolean))
      await git(['update-ref', '-d', ref], { cwd: this.fake.repo.bare });
    await this.fake.close();
    await removeTempDir(this.dataDir);
  }
}

export const gitlabWorld: WorldKind = {
  name: 'gitlab',
  capabilities: new Set([
    'close',
    'conflicts',
    'baseChange',
    'outsideMerge',
    'labels',
    'comments',
    'drafts',
    'permissions',
    'lostDeliveries',
  ]),
  async create() {
    const fake = await FakeGitlabApi.start('acme/tools/web');
    await fake.repo.setBranch(
      'main',
      await fake.repo.commit(await fake.repo.branchSha('main'), { 'src/app.txt': APP_LINES }, 'Add the app'),
    );
    const dataDir = await makeTempDir('greenline-gitlab-world-');
    const s = await serviceOverForge({
      forge: 'gitlab',
      adapter: () =>
        new GitlabForge({
          url: fake.url,
          token: fake.token,
          // Every read fetches: the scenarios push to GitLab between reads.
          git: createGitForge({ dataDir, logger: silentLogger, fetchTtlMs: 0 }),
          logger: silentLogger,
        }),
      connect: { slug: '127.0.0.1/acme/tools/web', remote: fake.url, requiredStatuses: ['build'] },
      pollIntervalMs: POLL_INTERVAL_MS,
    });
    const key: QueueKey = { repo: { host: '127.0.0.1', owner: 'acme/tools', name: 'web' }, targetBranch: 'main' };
    await s.app.service.createQueue(s.ctx, key, {});
    const webhooks = s.webhooks({ translate: readGitlabDelivery });
    const http = await buildHttpApp({
      service: s.app.service,
      logger: false,
      enumCase: 'upper',
      forgeWebhooks: [{ webhook: gitlabForge.webhook!, secret: SIGNING_TOKEN, receive: webhooks.receive }],
    });
    const deliveries = new GitlabDeliveries(fake);
    deliveries.hooks.push({
      url: `${await http.listen({ port: 0, host: '127.0.0.1' })}/webhooks/gitlab`,
      signingToken: SIGNING_TOKEN,
    });
    return new GitlabWorld(fake, deliveries, dataDir, s, { webhooks, close: () => http.close() }, key);
  },
};
