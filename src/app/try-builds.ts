/**
 * Try builds: a PR merged with its target head (or on top of the PRs queued ahead, `onQueue`) and
 * tested by the queue's CI without being queued. The result is told on the PR (a comment, on forges
 * that have them) and kept: the PR's latest try is read through the API, the CLI and the dashboard.
 *
 *   requested → queued → building → testing → passed | failed
 *                  └──────────┴──────────┴──→ cancelled (a push to the PR, or the instance stopped)
 *
 * Tries live beside the queue, not in the engine's state: the queue never waits on them, and nothing
 * of the queue's policy depends on them. Each try is a row of its own (store/try-builds.ts), so it is
 * there after a restart; the work (the build and the command CI) is done by the instance the try was
 * asked of, at most the queue's `tryConcurrency` at once there, on a CI of its own (its own runner
 * slots: tries never take the queue's). A try an instance was running when it stopped is concluded
 * `cancelled` by whichever instance takes the queue over, saying so, rather than left open.
 *
 * A push to the PR cancels its try: the PR is read again while the try is open (every poll interval,
 * and when the forge or `notifyRefsMoved` tells of a change), and once more before the result is told.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CiPort, CiStatusReport, CiStatusSink } from '../ci/port.js';
import { queueOrder } from '../engine/index.js';
import type { RunPr } from '../engine/types.js';
import type { ForgePort, RepoBinding } from '../forge/port.js';
import type { Clock } from '../lib/clock.js';
import { ServiceError } from '../lib/errors.js';
import type { Database, QueueRow, RepoRow, TryBuildRow } from '../store/database.js';
import { findQueueById } from '../store/queues.js';
import { findRepoById } from '../store/repos.js';
import {
  findTryBuild,
  insertTryBuild,
  latestTryBuild,
  listOpenTryBuilds,
  OPEN_TRY_STATES,
  updateTryBuild,
} from '../store/try-builds.js';
import { forgeFor, type Adapters } from './adapters.js';
import type { QueueExecutor } from './executor/queue-executor.js';
import { queueConfigOf } from './executor/snapshot-io.js';
import { bindingOf } from './repo-binding.js';

/** The commit status context of a try's CI, and the name a try goes by on the PR. */
export const TRY_CONTEXT = 'greenline try';
const RUN_PREFIX = 'try-';

export interface TryBuildsDeps {
  db: Kysely<Database>;
  clock: Clock;
  newId: () => string;
  executor: QueueExecutor;
  forges: Adapters['forges'];
  /** Builds the CI tries run on, around the sink where it reports (its own runner, not the queue's). */
  createCi: (onStatus: CiStatusSink) => CiPort;
  /** How often the PRs of open tries are read again for a push. */
  pollIntervalMs: number;
  logger?: Logger;
}

export class TryBuilds {
  private readonly ci: CiPort;
  /** Tries this process is building or testing. */
  private readonly running = new Set<string>();
  private readonly work = new Set<Promise<unknown>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly deps: TryBuildsDeps) {
    this.ci = deps.createCi((report) => {
      const recorded = this.onStatus(report);
      this.track(recorded);
      return recorded;
    });
  }

  /**
   * Asks for a try of the PR in the queue (one at a time per PR). Refused when the repository has no
   * CI command, the PR does not exist or does not target the queue's branch, or its try is open.
   */
  async request(
    repo: RepoRow,
    queue: QueueRow,
    prNumber: number,
    opts: { onQueue: boolean; requestedBy: string },
  ): Promise<TryBuildRow> {
    if (repo.ci_command === null)
      throw new ServiceError(
        'TRY_UNAVAILABLE',
        `${repo.owner}/${repo.name} has no CI command: a try runs the built-in CI, set one with \`greenline repo connect --ci-command\``,
      );
    const { binding, forge } = this.forgeOf(repo);
    const pr = await forge.getPullRequest(binding, prNumber, queue.target_branch);
    if (!pr)
      throw new ServiceError('PR_NOT_FOUND', `Pull request #${prNumber} does not exist in ${repo.owner}/${repo.name}`);
    if (pr.baseBranch !== queue.target_branch)
      throw new ServiceError(
        'VALIDATION_FAILED',
        `pull request #${prNumber} targets ${pr.baseBranch}, not ${queue.target_branch}: try it in the queue of ${pr.baseBranch}`,
      );
    const open = await latestTryBuild(this.deps.db, queue.id, prNumber);
    if (open && isOpen(open)) throw tryOpen(open);
    const now = this.deps.clock.now();
    const row: TryBuildRow = {
      id: this.deps.newId(),
      queue_id: queue.id,
      pr_number: prNumber,
      head_sha: pr.headSha,
      on_queue: opts.onQueue ? 1 : 0,
      state: 'queued',
      base_sha: null,
      pr_numbers: JSON.stringify([prNumber]),
      test_sha: null,
      detail: 'waiting for a free try slot',
      requested_by: opts.requestedBy,
      created_at: now,
      updated_at: now,
    };
    try {
      await insertTryBuild(this.deps.db, row);
    } catch (err) {
      // Two requests at once: the open-try index let one in.
      const other = await latestTryBuild(this.deps.db, queue.id, prNumber);
      if (other && isOpen(other) && other.id !== row.id) throw tryOpen(other);
      throw err;
    }
    this.pump(queue.id);
    return row;
  }

  /** The PR's latest try in the queue; undefined when it never had one. */
  latest(queueId: string, prNumber: number): Promise<TryBuildRow | undefined> {
    return latestTryBuild(this.deps.db, queueId, prNumber);
  }

  /** Reads again the PRs of the repository's open tries (something moved on the forge). */
  async prsMoved(repoId: string, prNumbers?: readonly number[]): Promise<void> {
    for (const row of await listOpenTryBuilds(this.deps.db)) {
      if (!this.running.has(row.id) && row.state !== 'queued') continue;
      if (prNumbers && !prNumbers.includes(row.pr_number)) continue;
      const queue = await findQueueById(this.deps.db, row.queue_id);
      if (queue?.repo_id === repoId) await this.checkHead(row);
    }
  }

  /**
   * The queues this instance took (at start-up, or from an instance that stopped): their open tries
   * that no process runs any more are cancelled, saying why.
   */
  async queuesTaken(queueIds: readonly string[]): Promise<void> {
    for (const queueId of queueIds) {
      for (const row of await listOpenTryBuilds(this.deps.db, queueId)) {
        if (this.running.has(row.id) || row.state === 'queued') continue;
        await this.conclude(row, 'cancelled', 'the greenline instance testing it stopped; ask for the try again');
      }
      this.pump(queueId);
    }
  }

  start(): void {
    this.stopped = false;
    this.timer ??= setInterval(() => this.track(this.watchHeads()), this.deps.pollIntervalMs);
  }

  /** Stops watching and waits for the work in flight (the CI's runs are stopped by its owner). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  /** Resolves once no try work of this process is in flight (what tests wait on). */
  async settled(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  private track(p: Promise<unknown>): void {
    const done = p
      .catch((err: unknown) => this.deps.logger?.error({ err }, 'try build failed'))
      .finally(() => this.work.delete(done));
    this.work.add(done);
  }

  private async watchHeads(): Promise<void> {
    for (const row of await listOpenTryBuilds(this.deps.db))
      if (this.running.has(row.id) || row.state === 'queued') await this.checkHead(row);
  }

  /** Cancels the try when its PR moved on (pushed, closed, retargeted); true when it did. */
  private async checkHead(row: TryBuildRow): Promise<boolean> {
    const found = await this.placeOf(row);
    if (!found) return true;
    const { binding, forge } = this.forgeOf(found.repo);
    const pr = await forge.getPullRequest(binding, row.pr_number, found.queue.target_branch);
    const why =
      pr === null
        ? 'the pull request was closed'
        : pr.headSha !== row.head_sha
          ? `the pull request was pushed to (${pr.headSha.slice(0, 7)}) since the try of ${row.head_sha.slice(0, 7)}: ask for a try of the new head`
          : null;
    if (why === null) return false;
    await this.conclude(row, 'cancelled', why);
    return true;
  }

  /** Starts the queue's queued tries while it has free try slots. */
  private pump(queueId: string): void {
    if (this.stopped) return;
    this.track(
      (async () => {
        const queue = await findQueueById(this.deps.db, queueId);
        if (!queue) return;
        const slots = queueConfigOf(queue).tryConcurrency ?? 1;
        const open = await listOpenTryBuilds(this.deps.db, queueId);
        let busy = open.filter((r) => this.running.has(r.id)).length;
        for (const row of open) {
          if (busy >= slots) break;
          if (row.state !== 'queued' || this.running.has(row.id)) continue;
          this.running.add(row.id);
          busy++;
          this.track(
            this.build(row).catch((err: unknown) =>
              this.conclude(row, 'failed', `greenline could not build it: ${String(err)}`),
            ),
          );
        }
      })(),
    );
  }

  /** Builds the try commit and starts the CI on it. */
  private async build(row: TryBuildRow): Promise<void> {
    const found = await this.placeOf(row);
    if (!found) return;
    const { repo, queue } = found;
    const { binding, forge } = this.forgeOf(repo);
    const { base, prs } = await this.contentOf(row, queue, forge, binding);
    if (base === null)
      return void (await this.conclude(row, 'failed', `the target branch ${queue.target_branch} does not exist`));
    const prNumbers = JSON.stringify(prs.map((p) => p.number));
    const at = this.deps.clock.now();
    const building = { state: 'building', base_sha: base, pr_numbers: prNumbers, updated_at: at };
    const detail = `building #${row.pr_number} on ${describeBase(queue.target_branch, base, prs)}`;
    if (!(await updateTryBuild(this.deps.db, row.id, ['queued'], { ...building, detail }))) return this.release(row);
    const branch = `${binding.testBranchPrefix}/try-${row.pr_number}/${row.id}`;
    const built = await forge.createTestBranch(binding, { branch, baseSha: base, prs });
    if (!built.ok) {
      await forge.deleteBranch(binding, branch);
      return void (await this.conclude(row, 'failed', `it does not merge: ${built.detail}`));
    }
    const testing = {
      state: 'testing',
      test_sha: built.sha,
      detail: `testing ${built.sha.slice(0, 7)}`,
      updated_at: this.deps.clock.now(),
    };
    if (!(await updateTryBuild(this.deps.db, row.id, ['building'], testing))) {
      await forge.deleteBranch(binding, branch);
      return this.release(row);
    }
    const files = forge.changedFiles ? await forge.changedFiles(binding, { from: base, to: built.sha }) : null;
    await this.ci.start({
      repo: binding,
      runId: `${RUN_PREFIX}${row.id}`,
      branch,
      sha: built.sha,
      targetBranch: queue.target_branch,
      prNumbers: prs.map((p) => p.number),
      timeoutMinutes: queueConfigOf(queue).testingTimeoutMinutes,
      ...(files ? { changes: { baseSha: base, files } } : {}),
    });
  }

  /** The commit a try is built on and the PRs merged onto it, the tried PR last. */
  private async contentOf(
    row: TryBuildRow,
    queue: QueueRow,
    forge: ForgePort,
    binding: RepoBinding,
  ): Promise<{ base: string | null; prs: RunPr[] }> {
    const own: RunPr = { number: row.pr_number, headSha: row.head_sha };
    if (row.on_queue === 0) return { base: await forge.getBranchSha(binding, queue.target_branch), prs: [own] };
    const snapshot = await this.deps.executor.read(queue.id);
    const ahead = queueOrder(snapshot, { includeNotReady: false })
      .filter((e) => e.prNumber !== row.pr_number)
      .map((e) => ({ number: e.prNumber, headSha: e.headSha }));
    return {
      base: snapshot.targetSha ?? (await forge.getBranchSha(binding, queue.target_branch)),
      prs: [...ahead, own],
    };
  }

  /** What the try's CI reports: its end concludes the try. */
  private async onStatus(report: CiStatusReport): Promise<void> {
    try {
      if (!report.runId.startsWith(RUN_PREFIX)) return;
      const row = await findTryBuild(this.deps.db, report.runId.slice(RUN_PREFIX.length));
      if (row?.state !== 'testing') return;
      const { state, description } = report.status;
      if (state === 'pending' || state === 'skipped') return;
      if (await this.checkHead(row)) return;
      const said = description ? `: ${description}` : '';
      if (state === 'success') await this.conclude(row, 'passed', `${TRY_CONTEXT} passed${said}`);
      else if (state === 'cancelled') await this.conclude(row, 'cancelled', `the CI run was stopped${said}`);
      else await this.conclude(row, 'failed', `${TRY_CONTEXT} reported ${state}${said}`);
    } catch (err) {
      this.deps.logger?.warn({ err, runId: report.runId }, 'try status not recorded');
    }
  }

  /** Ends a try (when it is still open): stops its CI, deletes its branch, tells the PR. */
  private async conclude(row: TryBuildRow, state: 'passed' | 'failed' | 'cancelled', detail: string): Promise<void> {
    const moved = await updateTryBuild(this.deps.db, row.id, OPEN_TRY_STATES, {
      state,
      detail,
      updated_at: this.deps.clock.now(),
    });
    if (!moved) return;
    const wasRunning = this.running.has(row.id);
    if (wasRunning && state === 'cancelled') await this.ci.cancel(`${RUN_PREFIX}${row.id}`);
    const found = await this.placeOf(row);
    if (found) {
      const { binding, forge } = this.forgeOf(found.repo);
      if (row.state !== 'queued')
        await forge.deleteBranch(binding, `${binding.testBranchPrefix}/try-${row.pr_number}/${row.id}`);
      const ended = (await findTryBuild(this.deps.db, row.id)) ?? row;
      await forge.reply?.(binding, row.pr_number, commentOf(ended, found.queue.target_branch));
    }
    this.release(row);
  }

  private release(row: TryBuildRow): void {
    if (this.running.delete(row.id)) this.pump(row.queue_id);
  }

  private async placeOf(row: TryBuildRow): Promise<{ repo: RepoRow; queue: QueueRow } | null> {
    const queue = await findQueueById(this.deps.db, row.queue_id);
    const repo = queue && (await findRepoById(this.deps.db, queue.repo_id));
    return queue && repo ? { repo, queue } : null;
  }

  private forgeOf(repo: RepoRow): { binding: RepoBinding; forge: ForgePort } {
    const binding = bindingOf(repo);
    return { binding, forge: forgeFor({ forges: this.deps.forges, ci: this.ci }, binding) };
  }
}

export const isOpen = (row: Pick<TryBuildRow, 'state'>): boolean =>
  (OPEN_TRY_STATES as readonly string[]).includes(row.state);

const tryOpen = (row: TryBuildRow): ServiceError =>
  new ServiceError(
    'TRY_IN_PROGRESS',
    `pull request #${row.pr_number} has a try ${row.state} (${row.detail ?? ''}): wait for its result, or push to the pull request to cancel it`,
  );

function describeBase(targetBranch: string, base: string, prs: RunPr[]): string {
  const ahead = prs.slice(0, -1).map((p) => `#${p.number}`);
  return `${targetBranch} at ${base.slice(0, 7)}${ahead.length > 0 ? ` with ${ahead.join(', ')} queued ahead` : ''}`;
}

/** The comment a concluded try leaves on its PR. */
export function commentOf(row: TryBuildRow, targetBranch: string): string {
  const prs = JSON.parse(row.pr_numbers) as number[];
  const on =
    row.base_sha === null
      ? ''
      : ` (${row.head_sha.slice(0, 7)} merged with ${describeBase(
          targetBranch,
          row.base_sha,
          prs.map((n) => ({ number: n, headSha: '' })),
        )})`;
  const word = { passed: 'passed ✅', failed: 'failed ❌', cancelled: 'was cancelled' }[row.state] ?? row.state;
  return `${TRY_CONTEXT}${on} ${word}: ${row.detail ?? ''}. The pull request was not queued.`;
}
