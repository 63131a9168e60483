/**
 * Delivers the messages of one outbox (the webhooks', the chat notifications'), as Svix does:
 *
 * - the outbox sends each message its own way (a signed POST, a Slack message …) under the URL policy;
 *   success = a 2xx answer within the timeout (15 s); any other status, 3xx included (redirects are
 *   not followed), a network error or the timeout is a failure;
 * - retries after a failure on one schedule (retry-schedule.ts), then the message is given up (`failed`);
 * - a subscription whose attempts have all failed for the outbox's `disableAfterMs` is disabled, its
 *   pending messages given up;
 * - at least once: a message is claimed with a lease (its next attempt moves past the timeout) and
 *   this instance's id, so a crash mid-attempt means it is attempted again: once the lease runs out,
 *   or sooner, when another instance takes the dead one's queues over and hands its claims back
 *   (queue-takeover.ts); the message id (`webhook-id`) is the same on every attempt;
 * - in order: a message waits while an earlier one of its order key (the fan-outs) is pending;
 * - a blip costs no minutes: when a subscription answers 2xx, its messages waiting for a retry after
 *   an endpoint failure are due at once, and those held behind them follow in order; a message whose
 *   attempt failed while another of its subscription was being delivered is tried again at once; a
 *   message waiting for its endpoint is tried early when a message is queued behind it, and a failed
 *   early try does not count (retry-schedule.ts says which failures are the endpoint's).
 *
 * Every attempt is recorded in the outbox's attempts table. Each worker reads and writes only the
 * tables of its outbox. Time comes from the injected Clock; timers only wake the worker, the schedule
 * is in the rows, so deliveries survive a restart.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import { OutboxWorker } from '../lib/outbox-worker.js';
import { DAY_MS, MINUTE_MS } from '../lib/time.js';
import type { Database, DeliveryMessageRow } from '../store/database.js';
import { insertAttempt } from './attempts.js';
import { DEFAULT_TIMEOUT_MS, type Outcome } from './http-post.js';
import {
  deliveredAfter,
  failPendingMessages,
  leaseMessages,
  nextMessageDueAt,
  releaseMessagesWaitingForEndpoint,
  selectDueMessageIds,
  updateMessage,
} from './messages.js';
import { endpointWasDown, nextAttemptAt } from './retry-schedule.js';
import { endFailingRun, markFailing, setDeliveryState } from './subscriptions.js';
import type { DeliverySubscriptionColumns, OutboxTables } from './tables.js';
import { UrlPolicy } from './url-policy.js';

/** A subscription as the worker needs it: where it sends, whether it may, and its run of failures. */
export type DeliverySubscription = Pick<DeliverySubscriptionColumns, 'id' | 'url' | 'enabled' | 'failing_since'>;

/** What every send is held to: the URL policy, and how long a receiver has to answer. */
export interface SendLimits {
  policy: UrlPolicy;
  timeoutMs: number;
}

/** One outbox: its tables, its subscriptions, and how a message is sent to one of them. */
export interface Outbox<S extends DeliverySubscription> {
  readonly tables: OutboxTables;
  /** What its messages are, in log lines ("webhook", "notification"). */
  readonly what: string;
  /** How long a subscription may fail continuously before it is disabled. */
  readonly disableAfterMs: number;
  /** The subscription a message is for; undefined when it is gone. */
  findSubscription(db: Kysely<Database>, id: string): Promise<S | undefined>;
  /** Sends the message to the subscription once; says how it went (never throws). */
  send(subscription: S, message: DeliveryMessageRow, at: number, limits: SendLimits): Promise<Outcome>;
}

export interface DeliveryWorkerDeps {
  db: Kysely<Database>;
  clock: Clock;
  policy?: UrlPolicy;
  logger?: Logger;
  /** How long a receiver has to answer; default 15 s. */
  timeoutMs?: number;
  /** Longest sleep between looks at the outbox (other processes, e.g. the CLI, may add work); default 5 s. */
  idlePollMs?: number;
  /** Messages attempted side by side at most. */
  concurrency?: number;
  /** This instance's id, recorded on the messages it claims; default a new random one. */
  instanceId?: string;
}

export class DeliveryWorker<S extends DeliverySubscription> extends OutboxWorker {
  private readonly limits: SendLimits;
  private readonly instanceId: string;

  constructor(
    private readonly outbox: Outbox<S>,
    private readonly deps: DeliveryWorkerDeps,
  ) {
    super({
      nextDueAt: () => nextMessageDueAt(deps.db, outbox.tables),
      clock: deps.clock,
      ...(deps.idlePollMs !== undefined ? { idlePollMs: deps.idlePollMs } : {}),
      onError: (err) => deps.logger?.error({ err }, `${outbox.what} worker could not read the outbox`),
    });
    this.limits = { policy: deps.policy ?? new UrlPolicy(), timeoutMs: deps.timeoutMs ?? DEFAULT_TIMEOUT_MS };
    this.instanceId = deps.instanceId ?? randomUUID();
  }

  protected async lookAtOutbox(): Promise<void> {
    while (this.loop.running && (await this.round()) > 0);
  }

  /** Attempts every message due at the clock's current time, and those they unblock, until none is due. */
  async drain(): Promise<void> {
    while ((await this.round()) > 0);
  }

  /** Claims due messages (at most one per order key) and attempts them side by side; returns how many. */
  private async round(): Promise<number> {
    const { db, clock } = this.deps;
    const { tables } = this.outbox;
    const now = clock.now();
    const lease = now + this.limits.timeoutMs + MINUTE_MS;
    const claimed = await db
      .transaction()
      .execute(async (trx) =>
        leaseMessages(
          trx,
          tables,
          await selectDueMessageIds(trx, tables, now, this.deps.concurrency ?? 16),
          now,
          lease,
          this.instanceId,
        ),
      );
    await Promise.all(
      claimed.map((m) =>
        this.attempt(m).catch((err: unknown) => {
          this.deps.logger?.error({ err, message: m.message_id }, `${this.outbox.what} attempt could not be recorded`);
        }),
      ),
    );
    return claimed.length;
  }

  private async attempt(message: DeliveryMessageRow): Promise<void> {
    const { db, clock, logger } = this.deps;
    const { tables, what } = this.outbox;
    const subscription = await this.outbox.findSubscription(db, message.subscription_id);
    if (subscription?.enabled !== 1) {
      await updateMessage(db, tables, message.message_id, {
        status: 'failed',
        last_error: 'the endpoint is disabled',
        claimed_by: null,
        updated_at: clock.now(),
      });
      return;
    }
    const at = clock.now();
    const outcome = await this.outbox.send(subscription, message, at, this.limits);
    const now = clock.now();
    await insertAttempt(db, tables, {
      message_id: message.message_id,
      attempted_at: at,
      duration_ms: outcome.durationMs,
      status_code: outcome.statusCode,
      error: outcome.error,
      success: outcome.success ? 1 : 0,
      manual: message.manual,
    });
    // Tried early (a message was queued behind it while it waited for its endpoint): a failure keeps
    // its place in the schedule and does not count.
    const early = message.next_attempt_at > at;
    const attempts = message.attempts + 1;
    if (outcome.success) {
      await updateMessage(db, tables, message.message_id, {
        status: 'delivered',
        attempts,
        manual: 0,
        delivered_at: now,
        last_status_code: outcome.statusCode,
        last_error: null,
        claimed_by: null,
        updated_at: now,
      });
      if (await endFailingRun(db, tables, subscription.id, now)) await this.endpointAnswered(subscription, now);
      logger?.debug(
        { message: message.message_id, url: subscription.url, status: outcome.statusCode },
        `${what} delivered`,
      );
      return;
    }
    const retryAt = early ? message.next_attempt_at : nextAttemptAt(attempts, now);
    await updateMessage(db, tables, message.message_id, {
      status: retryAt === null ? 'failed' : 'pending',
      attempts: early ? message.attempts : attempts,
      manual: 0,
      next_attempt_at: retryAt ?? now,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      claimed_by: null,
      updated_at: now,
    });
    logger?.warn(
      { message: message.message_id, url: subscription.url, status: outcome.statusCode, err: outcome.error, attempts },
      retryAt === null ? `${what} delivery failed; giving up` : `${what} delivery failed; will retry`,
    );
    const since = await markFailing(db, tables, subscription.id, at);
    // The endpoint answered 2xx while this attempt was under way: it is back, so what waits for it goes
    // now. Checked once this message is unclaimed and the run of failures marked, so that either this
    // check sees that delivery, or that delivery ends the run and finds this message to release.
    if (retryAt !== null && endpointWasDown(outcome) && (await deliveredAfter(db, tables, subscription.id, at)))
      await this.endpointAnswered(subscription, now);
    const { disableAfterMs } = this.outbox;
    if (since !== null && now - since >= disableAfterMs) {
      const reason = `every attempt failed since ${new Date(since).toISOString()} (last: ${outcome.error})`;
      await setDeliveryState(db, tables, subscription.id, { enabled: 0, disabled_reason: reason, updated_at: now });
      await failPendingMessages(db, tables, subscription.id, 'the endpoint was disabled', now);
      logger?.warn(
        { subscription: subscription.id, url: subscription.url },
        `${what} endpoint disabled after ${Math.round(disableAfterMs / DAY_MS)} days of failures`,
      );
    }
  }

  /** The subscription answered 2xx at `now`: what waits for it after an endpoint failure is due now. */
  private async endpointAnswered(subscription: S, now: number): Promise<void> {
    const released = await releaseMessagesWaitingForEndpoint(this.deps.db, this.outbox.tables, subscription.id, now);
    if (released > 0)
      this.deps.logger?.info(
        { subscription: subscription.id, url: subscription.url, released },
        `${this.outbox.what} endpoint answered again; the deliveries waiting for it are sent now, in order`,
      );
  }
}
