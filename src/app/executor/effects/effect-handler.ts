/**
 * What a handler of one effect kind is given and gives back (effect-runner.ts picks the handler by
 * the effect's kind). A handler does the effect's work and returns the engine event that reports
 * its result, or null when there is none; an error it throws is transient, and the runner retries
 * the effect. `exhausted` is what the engine hears when the effect's retry budget is spent; the
 * handlers of clean-up work have none.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { type Effect, type EngineEvent, isInFlight } from '../../../engine/index.js';
import type { Clock } from '../../../lib/clock.js';
import type { NoticeContext } from '../../../notify/fan-out.js';
import type { RepoBinding } from '../../../forge/port.js';
import type { Database, QueueRow, RepoRow } from '../../../store/database.js';
import { findRunRow, runOf } from '../../../store/test-runs.js';
import type { Adapters } from '../../adapters.js';
import type { QueueLeases } from '../../cluster/queue-leases.js';
import type { CiOutcome } from '../ci-outcome.js';
import type { QueueExecutor } from '../queue-executor.js';

/** What the handlers act through. */
export interface EffectServices {
  db: Kysely<Database>;
  executor: QueueExecutor;
  adapters: Adapters;
  ciOutcome: CiOutcome;
  clock: Clock;
  /** Which queues this instance drives; the built-in CI runs are marked with its instance id. */
  leases: QueueLeases;
  logger?: Logger;
  /** Told when an event queued webhook deliveries. */
  onWebhookMessages?: () => void;
  /** Told when an event queued chat notifications. */
  onNotifications?: () => void;
  /** How chat notifications are written: the reason sentences, the server's public URL. */
  notices: NoticeContext;
}

/** The services, and the queue the effect belongs to as read when it runs. */
export interface EffectContext extends EffectServices {
  queueId: string;
  queue: QueueRow;
  repo: RepoRow;
  binding: RepoBinding;
}

/** Each effect kind's effect. */
type EffectByKind = { [K in Effect['kind']]: Extract<Effect, { kind: K }> };
export type EffectOf<K extends Effect['kind']> = EffectByKind[K];

export interface EffectHandler<K extends Effect['kind']> {
  perform(ctx: EffectContext, effect: EffectOf<K>): Promise<EngineEvent | null>;
  /** What the engine hears when the retry budget is spent; `detail` says so, with the last error. */
  exhausted?(effect: EffectOf<K>, detail: string, at: number): EngineEvent;
}

/**
 * True, and logged, when the effect's run is finished or cancelled, so that building its branch or
 * starting its CI would only leave something behind. A merge's rebuild of a test commit has no run
 * of its own: it is never skipped (its branch is deleted after it, in its chain).
 */
export async function runIsOver(
  ctx: EffectContext,
  effect: EffectOf<'createTestBranch' | 'startCi' | 'retryCi'>,
): Promise<boolean> {
  const row = await findRunRow(ctx.db, effect.runId);
  if (!row || isInFlight(runOf(row))) return false;
  ctx.logger?.info(
    { queue: ctx.queueId, effect: effect.key, run: effect.runId, status: row.status },
    `${effect.kind} skipped: the run is already ${row.status}`,
  );
  return true;
}
