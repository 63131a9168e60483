/**
 * The in-memory world of the forge contract (forge-world.ts): the real service as the service and
 * API tests build it (test/helpers/service.ts: SQLite in memory, the in-memory forge of
 * test/doubles/in-memory-forge.ts, scripted CI), no git and no HTTP. What those tests trust the
 * in-memory forge to be, checked against what the contract asks of every forge.
 *
 * Greenline learns of PR changes and pushes by polling (`tick`), reading the in-memory forge; CI
 * reports through the service's status API, by commit sha, as external CI does. Labels and comment
 * commands arrive as a forge adapter reports its webhook deliveries: observations
 * (src/forge/observations.ts) applied at once by the service's forge observations. A PR is a draft,
 * or conflicts with the target, by the mergeability the forge reports for it (as GitHub's does);
 * a conflicting PR's head also fails to merge into a test commit until the conflict is resolved.
 *
 * Commits of the in-memory forge carry no content: each lists the PR heads it holds, so what the
 * target holds is read from its commit (PR versions) and its ancestry (outside pushes).
 *
 * What the in-memory forge does not model, and so is not a capability here: who may write to the
 * repository (every commenter may command the queue), CI results held on the forge (CI tells the
 * service alone) and branch protection.
 */
import type { CiStatus } from '../../src/forge/port.js';
import { type ForgeObservation, parseQueueCommand } from '../../src/forge/observations.js';
import type { InMemoryForge, InMemoryPr } from '../doubles/in-memory-forge.js';
import { findRepo } from '../../src/store/repos.js';
import { listQueuesOfRepos } from '../../src/store/queues.js';
import { createTestService, type TestService } from '../helpers/service.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { type ForgeWorld, type OpenPrOptions, POLL_INTERVAL_MS, type WorldKind } from './forge-world.js';

const REPO = 'github.com/acme/web';

class InMemoryWorld implements ForgeWorld {
  /** PR versions by their head sha (`#1 v1`). */
  private readonly versions = new Map<string, string>();
  /** Outside pushes by their commit's sha (their label). */
  private readonly outside = new Map<string, string>();

  constructor(
    private readonly t: TestService,
    readonly ctx: AuthContext,
    readonly key: QueueKey,
  ) {}

  get service() {
    return this.t.service;
  }
  private get forge(): InMemoryForge {
    return this.t.forge;
  }
  private pr(n: number): InMemoryPr {
    const pr = this.forge.state(REPO).prs.get(n);
    if (!pr) throw new Error(`no PR #${n}`);
    return pr;
  }

  /** Tells greenline what the forge saw, as its adapter reports a webhook delivery. */
  private async tell(o: ForgeObservation): Promise<void> {
    const [host, owner, name] = REPO.split('/') as [string, string, string];
    const repo = (await findRepo(this.t.db, host, owner, name))!;
    await this.t.app.forgeObservations.apply(repo, await listQueuesOfRepos(this.t.db, [repo.id]), o);
  }

  async openPr(n: number, opts: OpenPrOptions = {}): Promise<void> {
    const pr = this.forge.openPr(REPO, {
      number: n,
      title: `Change ${n}`,
      ...(opts.draft ? { mergeability: 'not_mergeable', unmergeable: { cause: 'draft' } } : {}),
      ...(opts.conflicting ? { mergeability: 'not_mergeable', unmergeable: { cause: 'conflict' } } : {}),
    });
    this.versions.set(pr.headSha, `#${n} ${opts.version ?? 'v1'}`);
    if (opts.conflicting) {
      this.forge.state(REPO).conflicting.add(n);
      this.forge.pushToBranch(REPO, 'main', `clashes with #${n}`);
    }
  }

  async pushToPr(n: number, version: string): Promise<void> {
    this.versions.set(this.forge.pushToPr(REPO, n), `#${n} ${version}`);
  }

  async pushToTarget(label: string): Promise<void> {
    this.outside.set(this.forge.pushToBranch(REPO, 'main', label), label);
  }

  async reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void> {
    await this.service.reportStatus(this.ctx, { repo: this.key.repo, sha, status: { context, state } });
  }

  async closePr(n: number): Promise<void> {
    this.forge.closePr(REPO, n);
  }

  async resolveConflict(n: number): Promise<void> {
    this.forge.pushToBranch(REPO, 'main', `no longer clashes with #${n}`);
    this.forge.state(REPO).conflicting.delete(n);
    const pr = this.pr(n);
    pr.mergeability = 'mergeable';
    delete pr.unmergeable;
  }

  async changeBase(n: number, branch: string): Promise<void> {
    const s = this.forge.state(REPO);
    if (!s.branches.has(branch)) s.branches.set(branch, s.branches.get('main')!);
    this.pr(n).baseBranch = branch;
  }

  async openStackedPr(n: number, below: number): Promise<void> {
    await this.openPr(n);
    this.pr(n).baseBranch = this.pr(below).headBranch ?? `feature-${below}`;
  }

  async retargetStacked(n: number): Promise<void> {
    this.pr(n).baseBranch = 'main';
  }

  async mergeOutside(n: number): Promise<void> {
    this.forge.mergePr(REPO, n);
  }

  async setLabel(n: number, label: string, on: boolean): Promise<void> {
    const pr = this.pr(n);
    const labels = (pr.labels ?? []).filter((l) => l !== label);
    pr.labels = on ? [...labels, label] : labels;
    await this.tell({ kind: 'prLabel', prNumber: n, baseBranch: pr.baseBranch, label, added: on, sender: 'ada' });
  }

  async comment(n: number, body: string): Promise<void> {
    const command = parseQueueCommand(body);
    if (command) await this.tell({ kind: 'prComment', prNumber: n, command, author: 'ada' });
  }

  async replies(n: number): Promise<string[]> {
    return this.forge.state(REPO).comments.get(n) ?? [];
  }

  async setDraft(n: number, draft: boolean): Promise<void> {
    const pr = this.pr(n);
    pr.mergeability = draft ? 'not_mergeable' : 'mergeable';
    if (draft) pr.unmergeable = { cause: 'draft' };
    else delete pr.unmergeable;
  }

  async tick(): Promise<void> {
    this.t.clock.advance(POLL_INTERVAL_MS);
    await this.t.app.poller.pollOnce();
    await this.t.runEffects();
  }

  async targetSha(): Promise<string> {
    return this.forge.state(REPO).branches.get('main')!;
  }

  async targetHolds(): Promise<string[]> {
    const { commits } = this.forge.state(REPO);
    const target = commits.get(await this.targetSha())!;
    const held = new Map<string, string>();
    // A PR's later version holds its earlier ones: the last one listed is the one on the target.
    for (const pr of target.prs) held.set(`#${pr.number}`, this.versions.get(pr.headSha) ?? `#${pr.number} ?`);
    for (let sha: string | null = target.sha; sha; sha = commits.get(sha)!.parent) {
      const label = this.outside.get(sha);
      if (label) held.set(label, label);
    }
    return [...held.values()].sort();
  }

  close(): Promise<void> {
    return this.t.close();
  }
}

export const inMemoryWorld: WorldKind = {
  name: 'in-memory',
  capabilities: new Set(['close', 'conflicts', 'baseChange', 'outsideMerge', 'labels', 'comments', 'drafts', 'stacks']),
  async create() {
    const t = await createTestService({ now: Date.UTC(2026, 0, 5, 9) });
    const { ctx } = await t.createOrg('acme');
    await t.connectRepo('acme', REPO, { requiredStatuses: ['build'] });
    const key = t.key(REPO);
    await t.service.createQueue(ctx, key, {});
    return new InMemoryWorld(t, ctx, key);
  },
};
