/**
 * Executes the effects outbox of the queues this instance holds the lease of (queue-leases.ts). Due
 * rows are claimed with a lease and the claiming instance's id (a crashed runner's rows come back when
 * its effect lease expires, or at once when another instance takes its queue over: queue-takeover.ts), executed through the repository's forge/CI adapters, and their results fed back
 * to the queue as engine events — the event and "effect done" commit in one transaction, so a result
 * is never applied twice. A thrown error is transient: the row is rescheduled by RETRY_RULES (the
 * backoff is stored in `run_at`); when the budget is spent the engine hears a failure. A forge whose
 * request budget is spent (ForgeRateLimitedError) postpones the effect to the budget's reset, the
 * attempt not counted.
 *
 *   createTestBranch → testBranchCreated | testBranchFailed (the test commit is recorded for its run
 *                       as soon as it is built, before it is published: see ci-outcome, adoptTestCommit)
 *   startCi          → ciStarted (fixes required statuses, reads the checks the forge already holds for
 *                       the commit; the outcome comes later from statuses, see ci-outcome)
 *   retryCi          → (forgets the run's statuses, runs the built-in CI again or asks the forge to re-run
 *                       the checks; external CI hears `test_run.retry_requested`)
 *   merge            → merged | mergeFailed
 *   scheduleWakeup   → tick
 *   emitEvent        → stored in queue_events and fanned out to webhook subscriptions and chat channels (queue-events.ts)
 *   cancelCi, deleteTestBranch → nothing
 *
 * Effects of one queue run one at a time, by that queue's worker; different queues run side by side,
 * so a slow forge for one repository holds up nobody else. Within a queue, the effects of one run and
 * the queue's events each run in the order the engine emitted them, whoever executes them: an effect
 * waits while an earlier one of its chain is pending (store/effects.ts, "Order"), be it retrying or
 * claimed by an instance that died. Building a test branch or starting CI for a run that is already
 * finished or cancelled is skipped (and logged): it would only leave a branch or a CI run behind.
 * Timers only wake the runner; the work and its schedule are rows.
 *
 * Each kind's work, and what the engine hears when its retries are spent, is a handler in effects/.
 */
import type { Effect, EngineEvent } from '../../engine/index.js';
import { OutboxWorker } from '../../lib/outbox-worker.js';
import type { EffectRow } from '../../store/database.js';
import {
  completeEffect,
  failEffect,
  leaseEffects,
  nextEffectRunAt,
  rescheduleEffect,
  selectDueEffectIds,
  selectQueuesWithDueEffects,
} from '../../store/effects.js';
import { ForgeRateLimitedError } from '../../forge/port.js';
import { findQueueById } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import { bindingOf } from '../repo-binding.js';
import { cancelCi } from './effects/cancel-ci.js';
import { createTestBranch } from './effects/create-test-branch.js';
import { deleteTestBranch } from './effects/delete-test-branch.js';
import type { EffectHandler, EffectOf, EffectServices } from './effects/effect-handler.js';
import { emitEvent } from './effects/emit-event.js';
import { merge } from './effects/merge.js';
import { retryCi } from './effects/retry-ci.js';
import { scheduleWakeup } from './effects/schedule-wakeup.js';
import { startCi } from './effects/start-ci.js';
import { nextAttemptAt } from './retry-policy.js';

/** The handler of each effect kind. */
const HANDLERS: { [K in Effect['kind']]: EffectHandler<K> } = {
  createTestBranch,
  startCi,
  retryCi,
  cancelCi,
  deleteTestBranch,
  merge,
  emitEvent,
  scheduleWakeup,
};

export interface EffectRunnerDeps extends EffectServices {
  /**
   * How long a claimed effect is held before another runner may take it over. Long (an effect may
   * fetch or push a big repository): a dead instance's claims come back sooner, when its queue is taken over.
   */
  leaseMs?: number;
  /** Longest sleep between looks at the outbox (other instances may add work). */
  idlePollMs?: number;
  batchSize?: number;
}

export class EffectRunner extends OutboxWorker {
  /** One worker per queue with due effects: a slow effect holds up its own queue only. */
  private readonly workers = new Map<string, Promise<void>>();

  constructor(private readonly deps: EffectRunnerDeps) {
    super({
      nextDueAt: () => nextEffectRunAt(deps.db, deps.leases.heldQueues()),
      clock: deps.clock,
      ...(deps.idlePollMs !== undefined ? { idlePollMs: deps.idlePollMs } : {}),
      onError: (err) => deps.logger?.error({ err }, 'effect runner could not read the outbox'),
    });
  }

  /** Stops looking at the outbox and waits for the effects in progress. */
  override async stop(): Promise<void> {
    await super.stop();
    await Promise.all(this.workers.values());
  }

  protected async lookAtOutbox(): Promise<void> {
    await this.dispatch();
  }

  /** Executes due effects, and what they cause, until none is due (what tests call after each step). */
  async drain(): Promise<void> {
    await this.deps.leases.refresh();
    for (;;) {
      const started = await this.dispatch();
      if (started === 0 && this.workers.size === 0) return;
      await Promise.all(this.workers.values());
    }
  }

  /** Starts a worker for each queue that has due effects and no worker yet; returns how many. */
  private async dispatch(): Promise<number> {
    const { leases } = this.deps;
    const due = await selectQueuesWithDueEffects(this.deps.db, this.deps.clock.now(), [...this.workers.keys()]);
    const queues = due.filter((id) => leases.holds(id));
    const others = due.filter((id) => !leases.holds(id));
    // Work for a queue nobody holds yet (a new queue) need not wait for the next lease round.
    if (others.length > 0) {
      void leases
        .offer(others)
        .then(() => {
          if (others.some((id) => leases.holds(id))) this.wake();
        })
        .catch((err: unknown) => this.deps.logger?.warn({ err }, 'taking queue leases failed'));
    }
    for (const queueId of queues) {
      const worker = this.work(queueId)
        .catch((err: unknown) => this.deps.logger?.error({ err, queueId }, 'effect worker failed'))
        .finally(() => {
          this.workers.delete(queueId);
          this.wake(); // effects added while this worker was finishing
        });
      this.workers.set(queueId, worker);
    }
    return queues.length;
  }

  /** Claims and executes a queue's due effects in order until none is due. */
  private async work(queueId: string): Promise<void> {
    const { db, clock, leases } = this.deps;
    for (;;) {
      if (!leases.holds(queueId)) return;
      const now = clock.now();
      const claimed = await db
        .transaction()
        .execute(async (trx) =>
          leaseEffects(
            trx,
            await selectDueEffectIds(trx, now, this.deps.batchSize ?? 20, queueId, leases.instanceId),
            now + (this.deps.leaseMs ?? 600_000),
            leases.instanceId,
          ),
        );
      if (claimed.length === 0) return;
      for (const row of claimed) await this.execute(row);
    }
  }

  private async execute(row: EffectRow): Promise<void> {
    const effect = JSON.parse(row.payload) as Effect;
    const { db, executor, clock, logger } = this.deps;
    try {
      const event = await this.perform(row.queue_id, effect);
      if (event) {
        const r = await executor.apply(row.queue_id, event, {
          alsoInTransaction: (trx) => completeEffect(trx, row.id, clock.now()),
        });
        if (r.ok) return;
        logger?.debug({ effect: effect.key, rejection: r.rejection }, 'effect result not applied');
      }
      await completeEffect(db, row.id, clock.now());
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ForgeRateLimitedError) {
        logger?.warn({ effect: effect.key, retryAt: err.retryAt, err: message }, 'effect waits for the rate limit');
        return rescheduleEffect(db, row.id, Math.max(err.retryAt, clock.now()), message, clock.now(), 'given back');
      }
      const retryAt = nextAttemptAt(effect.kind, row.attempts, clock.now());
      logger?.warn(
        { effect: effect.key, attempts: row.attempts, err: message },
        retryAt ? 'effect failed; will retry' : 'effect failed; giving up',
      );
      if (retryAt !== null) return rescheduleEffect(db, row.id, retryAt, message, clock.now());
      await failEffect(db, row.id, message, clock.now());
      const giveUp = handlerOf(effect).exhausted?.(effect, `gave up after repeated errors: ${message}`, clock.now());
      if (giveUp) await executor.apply(row.queue_id, giveUp);
    }
  }

  /** Does the effect's work; returns the event that reports its result, if any. */
  private async perform(queueId: string, effect: Effect): Promise<EngineEvent | null> {
    const queue = await findQueueById(this.deps.db, queueId);
    const repo = queue && (await findRepoById(this.deps.db, queue.repo_id));
    if (!queue || !repo) return null;
    return handlerOf(effect).perform({ ...this.deps, queueId, queue, repo, binding: bindingOf(repo) }, effect);
  }
}

/** The handler of the effect's kind. */
function handlerOf<K extends Effect['kind']>(effect: EffectOf<K>): EffectHandler<K> {
  return HANDLERS[effect.kind as K];
}
