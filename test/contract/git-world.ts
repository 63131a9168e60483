/**
 * The git world of the forge contract (forge-world.ts): the real service over in-memory SQLite with
 * the real git forge on a real bare repository (test/helpers/git-fixture.ts). A PR is a ref
 * (`refs/pull/<n>/head`) whose commit writes `pr-<n>.txt` = its version; a push outside the queue
 * writes `outside/<label>.txt`; what the target holds is read from those files. Plain git tells
 * greenline nothing: the service learns everything by polling (`tick`), and CI reports through the
 * service's status API, by commit sha, as external CI does.
 *
 * What plain git cannot express, and so is not a capability here: base branches, merges outside the
 * queue (a merged PR is indistinguishable from a closed one), labels, comments and drafts.
 */
import { createGitForge } from '../../src/forge/git/index.js';
import type { App } from '../../src/app/create-app.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { git } from '../../src/git/git.js';
import type { ManualClock } from '../../src/lib/clock.js';
import type { CiStatus } from '../../src/forge/port.js';
import { APP_LINES, appWithLine, makeGitFixture, type GitFixture } from '../helpers/git-fixture.js';
import { type ServiceOverForge, serviceOverForge, silentLogger } from '../helpers/service-over-forge.js';
import { type ForgeWorld, type OpenPrOptions, POLL_INTERVAL_MS, type WorldKind } from './forge-world.js';

const MAIN = 'refs/heads/main';
const prRef = (n: number): string => `refs/pull/${n}/head`;

class GitWorld implements ForgeWorld {
  constructor(
    private readonly fx: GitFixture,
    private readonly over: ServiceOverForge,
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

  private async ref(ref: string): Promise<string> {
    const sha = await this.fx.refSha(ref);
    if (!sha) throw new Error(`${ref} does not exist`);
    return sha;
  }

  /** A commit of `files` on the target, pushed to it. */
  private async moveTarget(files: Record<string, string>, message: string): Promise<void> {
    await this.fx.setRef(MAIN, await this.fx.commit(await this.ref(MAIN), files, message));
  }

  async openPr(n: number, opts: OpenPrOptions = {}): Promise<void> {
    const files: Record<string, string> = { [`pr-${n}.txt`]: `${opts.version ?? 'v1'}\n` };
    if (opts.conflicting) files['src/app.txt'] = appWithLine(1, `line one as PR ${n} has it`);
    await this.fx.setRef(prRef(n), await this.fx.commit(await this.ref(MAIN), files, `Change ${n}`));
    if (opts.conflicting)
      await this.moveTarget({ 'src/app.txt': appWithLine(1, 'line one as main has it') }, `Clash with #${n}`);
  }

  async pushToPr(n: number, version: string): Promise<void> {
    const sha = await this.fx.commit(await this.ref(prRef(n)), { [`pr-${n}.txt`]: `${version}\n` }, `Change ${n}`);
    await this.fx.setRef(prRef(n), sha);
  }

  async pushToTarget(label: string): Promise<void> {
    await this.moveTarget({ [`outside/${label}.txt`]: `${label}\n` }, label);
  }

  async reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    await this.service.reportStatus(this.ctx, { repo: this.key.repo, sha, status: { context, state } });
  }

  async closePr(n: number): Promise<void> {
    await git(['update-ref', '-d', prRef(n)], { cwd: this.fx.remote });
  }

  async resolveConflict(n: number): Promise<void> {
    await this.moveTarget({ 'src/app.txt': APP_LINES }, `No longer clash with #${n}`);
  }

  async tick(): Promise<void> {
    this.clock.advance(POLL_INTERVAL_MS);
    await this.app.poller.pollOnce();
    await this.app.runner.drain();
  }

  targetSha(): Promise<string> {
    return this.ref(MAIN);
  }

  async targetHolds(): Promise<string[]> {
    const files = (await git(['ls-tree', '-r', '--name-only', MAIN], { cwd: this.fx.remote })).split('\n');
    const held: string[] = [];
    for (const file of files) {
      const pr = /^pr-(\d+)\.txt$/.exec(file);
      const outside = /^outside\/(.+)\.txt$/.exec(file);
      if (pr) held.push(`#${pr[1]} ${(await this.fx.readFile(MAIN, file))!.trim()}`);
      if (outside) held.push(outside[1]!);
    }
    return held.sort();
  }

  async close(): Promise<void> {
    await this.over.close();
    // A scenario may end with a PR still testing: its test branch is the run's, not a leftover.
    const branches = await git(['for-each-ref', '--format=%(refname)', 'refs/heads/greenline-merge/'], {
      cwd: this.fx.remote,
    });
    for (const ref of branches.split('\n').filter(Boolean))
      await git(['update-ref', '-d', ref], { cwd: this.fx.remote });
    await this.fx.cleanup();
  }
}

export const gitWorld: WorldKind = {
  name: 'git',
  capabilities: new Set(['close', 'conflicts', 'changedFiles']),
  async create() {
    const fx = await makeGitFixture();
    const { owner, name } = fx.binding().repo;
    const s = await serviceOverForge({
      forge: 'git',
      // Every read fetches: the scenarios push to the remote between reads.
      adapter: () => createGitForge({ dataDir: fx.dataDir, logger: silentLogger, fetchTtlMs: 0 }),
      connect: { slug: `local/${owner}/${name}`, remote: fx.remote, requiredStatuses: ['build'] },
      pollIntervalMs: POLL_INTERVAL_MS,
    });
    const key: QueueKey = { repo: { host: 'local', owner, name }, targetBranch: 'main' };
    await s.app.service.createQueue(s.ctx, key, {});
    return new GitWorld(fx, s, key);
  },
};
