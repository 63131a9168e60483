/**
 * The git forge has no webhooks, so greenline looks: every interval, for each queue that holds
 * non-terminal entries and whose lease this instance holds (queue-leases.ts), it reads the target branch head and each queued PR from the forge and turns
 * differences into engine events:
 *   target head differs from the queue's          → targetMoved (see target-refresh for own merges)
 *   PR merged by someone else                     → prMergedOutside (forges that can tell: github)
 *   PR gone (closed)                              → prClosed
 *   head, base, title or mergeability changed     → prObserved
 * A failing queue is logged and retried at the next interval; the others go on.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { TERMINAL_STATES, type Entry, type PrInfo } from '../engine/types.js';
import type { Database, QueueRow } from '../store/database.js';
import { listActiveEntries } from '../store/entries.js';
import { listQueuesWithActiveEntries } from '../store/queues.js';
import { findRepoById } from '../store/repos.js';
import { forgeFor, type Adapters } from './adapters.js';
import type { Clock } from './clock.js';
import { Periodic } from './periodic.js';
import type { QueueExecutor } from './queue-executor.js';
import type { QueueLeases } from './queue-leases.js';
import { bindingOf } from './repo-binding.js';
import { refreshTarget } from './target-refresh.js';

export interface ForgePollerDeps {
  db: Kysely<Database>;
  adapters: Adapters;
  executor: QueueExecutor;
  clock: Clock;
  leases: QueueLeases;
  intervalMs: number;
  logger?: Logger;
}

const differs = (e: Entry, pr: PrInfo): boolean =>
  e.headSha !== pr.headSha || e.baseBranch !== pr.baseBranch || e.title !== pr.title || e.mergeability !== pr.mergeability;

export class ForgePoller {
  private readonly periodic: Periodic;

  constructor(private readonly deps: ForgePollerDeps) {
    this.periodic = new Periodic(
      () => this.pollOnce().catch((err: unknown) => this.deps.logger?.error({ err }, 'forge poll failed')), deps.intervalMs,
    );
  }

  start(): void {
    this.periodic.start();
  }

  stop(): Promise<void> {
    return this.periodic.stop();
  }

  /** One pass over every watched queue this instance holds (the lease round renewed first). */
  async pollOnce(): Promise<void> {
    await this.deps.leases.refresh();
    for (const queue of await listQueuesWithActiveEntries(this.deps.db, TERMINAL_STATES)) {
      if (!this.deps.leases.holds(queue.id)) continue;
      await this.pollQueue(queue).catch((err: unknown) =>
        this.deps.logger?.warn({ err, queue: queue.id, branch: queue.target_branch }, 'polling the forge failed'));
    }
  }

  private async pollQueue(queue: QueueRow): Promise<void> {
    const { db, adapters, executor, clock } = this.deps;
    const repo = await findRepoById(db, queue.repo_id);
    if (!repo) return;
    await refreshTarget(this.deps, queue, repo);
    const binding = bindingOf(repo);
    const forge = forgeFor(adapters, binding);
    for (const entry of await listActiveEntries(db, queue.id, TERMINAL_STATES)) {
      const pr = await forge.getPullRequest(binding, entry.prNumber, queue.target_branch);
      if (pr && !differs(entry, pr)) continue;
      const merged = !pr && (await forge.wasMerged?.(binding, entry.prNumber));
      await executor.apply(queue.id, (s) => {
        const now = s.entries.find((e) => e.prNumber === entry.prNumber);
        if (!now) return null;
        if (!pr) return { kind: merged ? 'prMergedOutside' : 'prClosed', at: clock.now(), prNumber: entry.prNumber };
        return differs(now, pr) ? { kind: 'prObserved', at: clock.now(), pr } : null;
      });
    }
  }
}
