/**
 * Executes the effects outbox of the queues this instance holds the lease of (queue-leases.ts). Due
 * rows are claimed with a lease and the claiming instance's id (a crashed runner's rows come back when
 * its effect lease expires, or at once when another instance takes its queue over: queue-takeover.ts), executed through the repository's forge/CI adapters, and their results fed back
 * to the queue as engine events — the event and "effect done" commit in one transaction, so a result
 * is never applied twice. A thrown error is transient: the row is rescheduled by RETRY_RULES (the
 * backoff is stored in `run_at`); when the budget is spent the engine hears a failure.
 *
 *   createTestBranch → testBranchCreated | testBranchFailed
 *   startCi          → (fixes required statuses; the outcome comes later from statuses, see ci-outcome)
 *   merge            → merged | mergeFailed
 *   scheduleWakeup   → tick
 *   emitEvent        → stored in queue_events and fanned out to webhook subscriptions (webhooks/fan-out.ts)
 *   cancelCi, deleteTestBranch → nothing
 *
 * Effects of one queue run one at a time, by that queue's worker; different queues run side by side,
 * so a slow forge for one repository holds up nobody else. Within a queue, the effects of one run and
 * the queue's events each run in the order the engine emitted them, whoever executes them: an effect
 * waits while an earlier one of its chain is pending (store/effects.ts, "Order"), be it retrying or
 * claimed by an instance that died. Building a test branch or starting CI for a run that is already
 * finished or cancelled is skipped (and logged): it would only leave a branch or a CI run behind.
 * Timers only wake the runner; the work and its schedule are rows.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isInFlight, type Effect, type EngineEvent } from '../../engine/index.js';
import type { Clock } from '../../lib/clock.js';
import { OutboxWorker } from '../../lib/outbox-worker.js';
import type { Database, EffectRow } from '../../store/database.js';
import {
  completeEffect,
  failEffect,
  leaseEffects,
  nextEffectRunAt,
  rescheduleEffect,
  selectDueEffectIds,
  selectQueuesWithDueEffects,
} from '../../store/effects.js';
import { findQueueById } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import { findRunRow, runOf, setRunRequiredStatuses } from '../../store/test-runs.js';
import { recordQueueEvent } from '../../webhooks/fan-out.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { CiOutcome } from './ci-outcome.js';
import type { QueueExecutor } from './queue-executor.js';
import type { QueueLeases } from '../cluster/queue-leases.js';
import { bindingOf, protectionStatuses, resolveRequiredStatuses } from '../repo-binding.js';
import { nextAttemptAt } from './retry-policy.js';
import { queueConfigOf } from './snapshot-io.js';

export interface EffectRunnerDeps {
  db: Kysely<Database>;
  executor: QueueExecutor;
  adapters: Adapters;
  ciOutcome: CiOutcome;
  clock: Clock;
  /** Which queues this instance drives. */
  leases: QueueLeases;
  logger?: Logger;
  /**
   * How long a claimed effect is held before another runner may take it over. Long (an effect may
   * fetch or push a big repository): a dead instance's claims come back sooner, when its queue is taken over.
   */
  leaseMs?: number;
  /** Longest sleep between looks at the outbox (other instances may add work). */
  idlePollMs?: number;
  batchSize?: number;
  /** Told when an event queued webhook deliveries. */
  onWebhookMessages?: () => void;
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
      const retryAt = nextAttemptAt(effect.kind, row.attempts, clock.now());
      logger?.warn(
        { effect: effect.key, attempts: row.attempts, err: message },
        retryAt ? 'effect failed; will retry' : 'effect failed; giving up',
      );
      if (retryAt !== null) return rescheduleEffect(db, row.id, retryAt, message, clock.now());
      await failEffect(db, row.id, message, clock.now());
      const giveUp = exhausted(effect, message, clock.now());
      if (giveUp) await executor.apply(row.queue_id, giveUp);
    }
  }

  /**
   * True, and logged, when the effect's run is finished or cancelled, so that building its branch or
   * starting its CI would only leave something behind. A merge's rebuild of a test commit has no run
   * of its own: it is never skipped (its branch is deleted after it, in its chain).
   */
  private async runIsOver(queueId: string, effect: RunEffect): Promise<boolean> {
    const row = await findRunRow(this.deps.db, effect.runId);
    if (!row || isInFlight(runOf(row))) return false;
    this.deps.logger?.info(
      { queue: queueId, effect: effect.key, run: effect.runId, status: row.status },
      `${effect.kind} skipped: the run is already ${row.status}`,
    );
    return true;
  }

  /** Does the effect's work; returns the event that reports its result, if any. */
  private async perform(queueId: string, effect: Effect): Promise<EngineEvent | null> {
    const { db, adapters, clock } = this.deps;
    const queue = await findQueueById(db, queueId);
    const repo = queue && (await findRepoById(db, queue.repo_id));
    if (!queue || !repo) return null;
    const binding = bindingOf(repo);
    switch (effect.kind) {
      case 'createTestBranch': {
        if (await this.runIsOver(queueId, effect)) return null;
        const r = await forgeFor(adapters, binding).createTestBranch(binding, {
          branch: effect.branch,
          baseSha: effect.baseSha,
          prs: effect.prs,
        });
        const at = clock.now();
        return r.ok
          ? { kind: 'testBranchCreated', at, runId: effect.runId, sha: r.sha }
          : { kind: 'testBranchFailed', at, runId: effect.runId, reason: r.reason, detail: r.detail };
      }
      case 'startCi': {
        if (await this.runIsOver(queueId, effect)) return null;
        const required =
          resolveRequiredStatuses(effect.requiredStatuses, repo) ??
          (await protectionStatuses(forgeFor(adapters, binding), binding, queue.target_branch));
        if (!required) {
          return {
            kind: 'ciResult',
            at: clock.now(),
            runId: effect.runId,
            outcome: 'failure',
            reason: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
            detail:
              'no required statuses: set requiredStatuses on the queue or connect the repository with a CI command',
          };
        }
        // With no check required (an empty override) the built-in CI is not started: its result could
        // change nothing, and evaluate() below passes the run at once.
        const runsCi = repo.ci_command !== null && required.statuses.length > 0;
        await setRunRequiredStatuses(
          db,
          effect.runId,
          required.statuses,
          required.source,
          runsCi ? this.deps.leases.instanceId : null,
        );
        if (runsCi) {
          await adapters.ci.start({
            repo: binding,
            runId: effect.runId,
            branch: effect.branch,
            sha: effect.sha,
            targetBranch: queue.target_branch,
            prNumbers: effect.prNumbers,
            timeoutMinutes: effect.timeoutMinutes,
          });
        }
        await this.deps.ciOutcome.evaluate(effect.runId);
        return null;
      }
      case 'cancelCi':
        await adapters.ci.cancel(effect.runId);
        return null;
      case 'deleteTestBranch':
        await forgeFor(adapters, binding).deleteBranch(binding, effect.branch);
        return null;
      case 'merge': {
        const r = await forgeFor(adapters, binding).advanceTarget(binding, {
          targetBranch: queue.target_branch,
          expectedSha: effect.expectedTargetSha,
          testSha: effect.testSha,
          prs: effect.prs,
          method: effect.method,
        });
        const at = clock.now();
        const prNumbers = effect.prs.map((p) => p.number);
        return r.ok
          ? { kind: 'merged', at, runId: effect.runId, prNumbers, newTargetSha: r.newSha }
          : {
              kind: 'mergeFailed',
              at,
              runId: effect.runId,
              prNumbers,
              reason: r.reason,
              detail: r.detail,
              ...(r.mergedPrNumbers ? { mergedPrNumbers: r.mergedPrNumbers } : {}),
              ...(r.newSha ? { newTargetSha: r.newSha } : {}),
            };
      }
      case 'emitEvent':
        if ((await recordQueueEvent(db, queueId, effect.key, effect.event, clock.now())) > 0)
          this.deps.onWebhookMessages?.();
        await forgeFor(adapters, binding).onQueueEvent?.(
          binding,
          { targetBranch: queue.target_branch, config: queueConfigOf(queue) },
          effect.event,
        );
        return null;
      case 'scheduleWakeup':
        return { kind: 'tick', at: clock.now() };
    }
  }
}

/** The effects that build or start something for a run. */
type RunEffect = Extract<Effect, { kind: 'createTestBranch' | 'startCi' }>;

/** What the engine hears when an effect's retry budget is spent; null for clean-up work. */
function exhausted(effect: Effect, message: string, at: number): EngineEvent | null {
  const detail = `gave up after repeated errors: ${message}`;
  switch (effect.kind) {
    case 'createTestBranch':
      return { kind: 'testBranchFailed', at, runId: effect.runId, reason: 'START_TEST_RUN_RETRY_EXHAUSTED', detail };
    case 'startCi':
      return {
        kind: 'ciResult',
        at,
        runId: effect.runId,
        outcome: 'failure',
        reason: 'START_TEST_RUN_RETRY_EXHAUSTED',
        detail,
      };
    case 'merge':
      return {
        kind: 'mergeFailed',
        at,
        runId: effect.runId,
        prNumbers: effect.prs.map((p) => p.number),
        reason: 'GITHUB_API_MERGE_PR_FAILED',
        detail,
      };
    default:
      return null;
  }
}
