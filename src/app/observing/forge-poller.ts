/**
 * The git forge has no webhooks, so greenline looks: every interval, for each queue that holds
 * non-terminal entries and whose lease this instance holds (queue-leases.ts), it reads the target branch head and each queued PR from the forge and turns
 * differences into engine events (forge-observations.ts, the path webhook deliveries take too).
 * Reading costs what changed, not what exists: the forge answers unmoved refs from what it read last
 * (the git forge: one `ls-remote` per repository, mergeability kept per (target, head)).
 * An idle queue backs off: when a read found nothing new and none of its PRs is in a test run, it
 * waits twice as long before the next (from the interval up to `idleMaxMs`). Anything that changes
 * the queue (a command, a CI result, a webhook: every commit of the executor, told by `wake`) brings
 * it back to the interval, and a push notification (`refsMoved`) reads the repository's queues at once.
 * Queues of a forge whose changes arrive by webhook (`webhookForges`: github with a webhook secret)
 * are read as a safety net, with backoff: after a read that found nothing new the queue waits twice
 * as long before the next (from the interval up to `safetyNetMaxMs`), busy or not; a read that found
 * a change brings it back to the interval.
 *   target head differs from the queue's          → targetMoved (see target-refresh for own merges)
 *   PR merged by someone else                     → prMergedOutside (forges that can tell: github)
 *   PR gone (closed)                              → prClosed
 *   head, base, title or mergeability changed     → prObserved
 *   the only PR, not started, may merge directly  → prObserved with the forge's direct-merge facts
 *   a run testing, on a forge whose CI results are polled (ForgePort.pollsChecks)
 *                                                 → its test commit's statuses read at every poll, one
 *                                                   request per run; what changed is recorded
 *   a run testing with no CI news for CHECKS_QUIET_MS → every check of its test commit read again
 *                                                   (a delivery that was lost), at most once per that time;
 *                                                   a retry waiting for its workflows is carried out instead
 * A failing queue is logged and retried at the next interval; the others go on.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { waitsToStart } from '../../engine/index.js';
import { TERMINAL_STATES } from '../../engine/types.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { listActiveEntries } from '../../store/entries.js';
import { listQueuesWithActiveEntries } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { Clock } from '../../lib/clock.js';
import { observePr } from './forge-observations.js';
import { Periodic } from '../cluster/periodic.js';
import { mayMergeDirectly, prChanged } from './pr-observation.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import type { QueueLeases } from '../cluster/queue-leases.js';
import { bindingOf } from '../repo-binding.js';
import { queueConfigOf } from '../executor/snapshot-io.js';
import { refreshTarget } from './target-refresh.js';
import type { CiOutcome } from '../executor/ci-outcome.js';
import { MINUTE_MS } from '../../lib/time.js';
import type { ForgePort, RepoBinding } from '../../forge/port.js';
import { listQuietRuns, listRunsUnderTest } from '../../store/ci-statuses.js';
import { resumeRerun } from '../executor/check-reruns.js';
import { runOf } from '../../store/test-runs.js';
import { KeyedSerial } from '../../lib/keyed-serial.js';

/** How long a testing run may hear nothing from CI before its checks are read from the forge again. */
export const CHECKS_QUIET_MS = 10 * MINUTE_MS;
/** An idle queue of a polled forge is read at least every this many intervals (2 minutes at 15 s). */
export const IDLE_MAX_INTERVALS = 8;

export interface ForgePollerDeps {
  db: Kysely<Database>;
  /** Where the checks read again are recorded. */
  ciOutcome: CiOutcome;
  adapters: Adapters;
  executor: QueueExecutor;
  clock: Clock;
  leases: QueueLeases;
  intervalMs: number;
  /** Forges whose changes arrive by webhook: their queues are read as a safety net, with backoff. */
  webhookForges?: readonly RepoBinding['forge'][];
  /** The longest wait between two safety-net reads of a queue (default 20 intervals). */
  safetyNetMaxMs?: number;
  /** The longest wait between two reads of an idle queue of a polled forge (default IDLE_MAX_INTERVALS intervals). */
  idleMaxMs?: number;
  logger?: Logger;
}

export class ForgePoller {
  private readonly periodic: Periodic;
  /** Queues that back off: when each is read next, the wait after that read, and whether it is a safety net. */
  private readonly pace = new Map<string, { nextAt: number; waitMs: number; safetyNet: boolean }>();
  /** One read of a queue at a time (the interval's and a push notification's). */
  private readonly reading = new KeyedSerial();
  /** When each quiet run's checks were last read again. */
  private readonly reread = new Map<string, number>();

  constructor(private readonly deps: ForgePollerDeps) {
    this.periodic = new Periodic(
      () => this.pollOnce().catch((err: unknown) => this.deps.logger?.error({ err }, 'forge poll failed')),
      deps.intervalMs,
    );
  }

  /**
   * Polls now, then every interval: at start-up every queue this instance holds is read at once, so
   * that what happened while no instance listened (a PR pushed; a CI result nobody was told of, read
   * for every run under test on a forge whose CI results are polled) is acted on without waiting;
   * so are queues taken over later (`taken`).
   */
  start(): void {
    this.periodic.start({ immediately: true });
  }

  /**
   * This instance took queues (from an instance that died, whose leases expired): a started poller
   * polls now, reading them at once rather than at the next interval.
   */
  taken(): void {
    this.periodic.runNow();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /**
   * The queue changed (a command, a CI result, a webhook): a polled queue that backed off is read
   * at the interval again, from the next poll. Safety-net queues keep their pace: their changes come
   * by webhook.
   */
  wake(queueId: string): void {
    if (this.pace.get(queueId)?.safetyNet === false) this.pace.delete(queueId);
  }

  /**
   * Refs of the repository moved (a push notification): the forge looks again, and every queue of the
   * repository that this instance holds, has entries and that `refs` concern (its target branch, or
   * a PR head) is read now. Returns how many were read.
   */
  async refsMoved(repo: RepoRow, refs: readonly string[]): Promise<number> {
    const binding = bindingOf(repo);
    forgeFor(this.deps.adapters, binding).refsMoved?.(binding);
    const [before, after] = binding.prRefPattern.split('{n}') as [string, string];
    const prHeadMoved = refs.some(
      (r) => r.length > before.length + after.length && r.startsWith(before) && r.endsWith(after),
    );
    const queues = (await listQueuesWithActiveEntries(this.deps.db, TERMINAL_STATES)).filter(
      (q) =>
        q.repo_id === repo.id &&
        this.deps.leases.holds(q.id) &&
        (prHeadMoved || refs.includes(`refs/heads/${q.target_branch}`)),
    );
    for (const queue of queues) {
      this.pace.delete(queue.id);
      await this.pollQueue(queue);
    }
    return queues.length;
  }

  /** One pass over every watched queue this instance holds (the lease round renewed first). */
  async pollOnce(): Promise<void> {
    await this.deps.leases.refresh();
    const queues = await listQueuesWithActiveEntries(this.deps.db, TERMINAL_STATES);
    for (const id of this.pace.keys()) if (!queues.some((q) => q.id === id)) this.pace.delete(id);
    for (const queue of queues) {
      if (!this.deps.leases.holds(queue.id)) continue;
      await this.pollQueue(queue).catch((err: unknown) =>
        this.deps.logger?.warn({ err, queue: queue.id, branch: queue.target_branch }, 'polling the forge failed'),
      );
    }
  }

  private async pollQueue(queue: QueueRow): Promise<void> {
    const { clock, intervalMs } = this.deps;
    const pace = this.pace.get(queue.id);
    // Due within half an interval: read now (the tick after would be late, a pass takes time).
    if (pace && clock.now() < pace.nextAt - intervalMs / 2) return;
    const repo = await findRepoById(this.deps.db, queue.repo_id);
    if (!repo) return;
    const safetyNet = this.deps.webhookForges?.includes(repo.forge) === true;
    const { changed, busy, pollsChecks } = await this.reading.run(queue.id, () => this.readQueue(queue, repo));
    const maxMs = safetyNet
      ? (this.deps.safetyNetMaxMs ?? 20 * intervalMs)
      : (this.deps.idleMaxMs ?? IDLE_MAX_INTERVALS * intervalMs);
    const waitMs =
      changed || !pace || (busy && (!safetyNet || pollsChecks)) ? intervalMs : Math.min(pace.waitMs * 2, maxMs);
    this.pace.set(queue.id, { nextAt: clock.now() + waitMs, waitMs, safetyNet });
  }

  /**
   * Reads the queue's target and PRs from the forge. `changed`: something differed from the queue's
   * view; `busy`: a PR of the queue is in a test run or being merged; `pollsChecks`: the forge's CI
   * results are read at every poll, so a busy queue keeps the interval even as a safety net.
   */
  private async readQueue(
    queue: QueueRow,
    repo: RepoRow,
  ): Promise<{ changed: boolean; busy: boolean; pollsChecks: boolean }> {
    const { db, adapters } = this.deps;
    let changed = await refreshTarget(this.deps, queue, repo);
    const binding = bindingOf(repo);
    const forge = forgeFor(adapters, binding);
    const entries = await listActiveEntries(db, queue.id, TERMINAL_STATES);
    // Direct merge (contract §6.9) is asked about for a queue's only PR while it waits to start (its
    // facts cost GitHub requests); a queue with more PRs tests them.
    const direct =
      queueConfigOf(queue).directMergeMode === 'always' && entries.length === 1
        ? forge.directMergeFacts?.bind(forge)
        : undefined;
    for (const entry of entries) {
      let pr = await forge.getPullRequest(binding, entry.prNumber, queue.target_branch);
      const facts = pr && direct && waitsToStart(entry) ? await direct(binding, pr) : null;
      if (pr && facts && mayMergeDirectly({ ...pr, ...facts })) pr = { ...pr, ...facts };
      if (pr && !mayMergeDirectly(pr) && !prChanged(entry, pr)) continue;
      const merged = !pr && (await forge.wasMerged?.(binding, entry.prNumber)) === true;
      await observePr(this.deps, queue.id, { kind: 'prSeen', prNumber: entry.prNumber, pr, merged });
      changed = true;
    }
    const pollsChecks = forge.pollsChecks?.(binding) === true;
    if (pollsChecks)
      for (const run of await listRunsUnderTest(db, queue.id))
        await this.deps.ciOutcome.readChecksOfAttempt(forge, binding, run);
    else await this.rereadQuietRuns(queue, binding, forge);
    return { changed, busy: entries.some((e) => !waitsToStart(e)), pollsChecks };
  }

  /** Reads again the checks of the queue's testing runs that heard nothing from CI for CHECKS_QUIET_MS. */
  private async rereadQuietRuns(queue: QueueRow, binding: RepoBinding, forge: ForgePort): Promise<void> {
    if (!forge.checkStatuses) return;
    const now = this.deps.clock.now();
    const since = now - CHECKS_QUIET_MS;
    for (const [runId, at] of this.reread) if (at < since) this.reread.delete(runId);
    for (const row of await listQuietRuns(this.deps.db, queue.id, since)) {
      if ((runOf(row).ciStartedAt ?? row.created_at) > since || this.reread.has(row.id)) continue;
      this.reread.set(row.id, now);
      if (await resumeRerun(this.deps, binding, row.id)) continue;
      await this.deps.ciOutcome.readChecksAgain(forge, binding, row.id, row.test_sha!);
    }
  }
}
