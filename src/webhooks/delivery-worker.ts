/**
 * Delivers webhook messages from the outbox (webhook_messages), as Svix does:
 *
 * - POST of the stored body with Standard Webhooks signature headers (and the same under svix-*);
 * - success = a 2xx answer within the timeout (15 s); any other status, 3xx included (redirects are
 *   not followed), a network error or the timeout is a failure;
 * - retries after a failure: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the previous attempt (8
 *   attempts in all, the first immediately), then the message is given up (`failed`);
 * - an endpoint whose attempts have all failed for 5 days is disabled, its pending messages given up;
 * - at least once: a message is claimed with a lease (its next attempt moves past the timeout) and
 *   this instance's id, so a crash mid-attempt means it is attempted again: once the lease runs out,
 *   or sooner, when another instance takes the dead one's queues over and hands its claims back
 *   (queue-takeover.ts); the `webhook-id` is the same on every attempt;
 * - in order per PR: a message waits while an earlier one of its order key (fan-out.ts) is pending.
 *
 * Every attempt is recorded in webhook_attempts. Time comes from the injected Clock; timers only
 * wake the worker, the schedule is in the rows, so deliveries survive a restart.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import { OutboxWorker } from '../lib/outbox-worker.js';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../lib/time.js';
import type { Database, WebhookMessageRow, WebhookSubscriptionRow } from '../store/database.js';
import {
  failPendingMessages,
  findSubscription,
  insertAttempt,
  leaseMessages,
  markFailing,
  nextMessageDueAt,
  selectDueMessageIds,
  updateMessage,
  updateSubscription,
} from '../store/webhooks.js';
import { attemptPost, type Outcome } from '../delivery/http-post.js';
import { signedHeaders } from '../delivery/signing.js';
import { UrlPolicy } from '../delivery/url-policy.js';

/** Delay before attempt n + 2 after attempt n + 1 failed (the first attempt is immediate). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const DEFAULT_TIMEOUT_MS = 15 * SECOND_MS;
/** An endpoint failing continuously this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR_MS;

/** Sends one message to its subscription's endpoint once; says how it went (never throws). */
export type SendAttempt = (
  subscription: WebhookSubscriptionRow,
  message: WebhookMessageRow,
  at: number,
) => Promise<Outcome>;

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
  /** This instance's id, recorded on the messages it claims. */
  instanceId?: string;
  /** How a message is sent; default: the stored body, POSTed with Standard Webhooks signature headers. */
  send?: SendAttempt;
  /** How long an endpoint may fail continuously before it is disabled; default 5 days. */
  disableAfterMs?: number;
  /** What the messages are, in log lines; default "webhook". */
  what?: string;
}

/**
 * Delivers the messages of an outbox with the webhook tables' shape: the webhooks' own, or another
 * seen through store/outboxes.ts (chat notifications), with its own `send`.
 */
export class DeliveryWorker extends OutboxWorker {
  private readonly timeoutMs: number;
  private readonly send: SendAttempt;
  private readonly what: string;

  constructor(private readonly deps: DeliveryWorkerDeps) {
    const what = deps.what ?? 'webhook';
    super({
      nextDueAt: () => nextMessageDueAt(deps.db),
      clock: deps.clock,
      ...(deps.idlePollMs !== undefined ? { idlePollMs: deps.idlePollMs } : {}),
      onError: (err) => deps.logger?.error({ err }, `${what} worker could not read the outbox`),
    });
    this.what = what;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const policy = deps.policy ?? new UrlPolicy();
    this.send =
      deps.send ??
      ((subscription, message, at) =>
        attemptPost(policy, subscription.url, {
          headers: signedHeaders(subscription.secret, message.message_id, Math.floor(at / 1000), message.body),
          body: message.body,
          timeoutMs: this.timeoutMs,
        }));
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
    const now = clock.now();
    const lease = now + this.timeoutMs + MINUTE_MS;
    const claimed = await db
      .transaction()
      .execute(async (trx) =>
        leaseMessages(
          trx,
          await selectDueMessageIds(trx, now, this.deps.concurrency ?? 16),
          now,
          lease,
          this.deps.instanceId ?? null,
        ),
      );
    await Promise.all(
      claimed.map((m) =>
        this.attempt(m).catch((err: unknown) => {
          this.deps.logger?.error({ err, message: m.message_id }, `${this.what} attempt could not be recorded`);
        }),
      ),
    );
    return claimed.length;
  }

  private async attempt(message: WebhookMessageRow): Promise<void> {
    const { db, clock, logger } = this.deps;
    const subscription = await findSubscription(db, message.subscription_id);
    if (subscription?.enabled !== 1) {
      await updateMessage(db, message.message_id, {
        status: 'failed',
        last_error: 'the endpoint is disabled',
        claimed_by: null,
        updated_at: clock.now(),
      });
      return;
    }
    const at = clock.now();
    const outcome = await this.send(subscription, message, at);
    const now = clock.now();
    await insertAttempt(db, {
      message_id: message.message_id,
      attempted_at: at,
      duration_ms: outcome.durationMs,
      status_code: outcome.statusCode,
      error: outcome.error,
      success: outcome.success ? 1 : 0,
      manual: message.manual,
    });
    const attempts = message.attempts + 1;
    if (outcome.success) {
      await updateMessage(db, message.message_id, {
        status: 'delivered',
        attempts,
        manual: 0,
        delivered_at: now,
        last_status_code: outcome.statusCode,
        last_error: null,
        claimed_by: null,
        updated_at: now,
      });
      if (subscription.failing_since !== null)
        await updateSubscription(db, subscription.id, { failing_since: null, updated_at: now });
      logger?.debug(
        { message: message.message_id, url: subscription.url, status: outcome.statusCode },
        `${this.what} delivered`,
      );
      return;
    }
    const giveUp = attempts >= MAX_ATTEMPTS;
    await updateMessage(db, message.message_id, {
      status: giveUp ? 'failed' : 'pending',
      attempts,
      manual: 0,
      next_attempt_at: giveUp ? now : now + RETRY_DELAYS_MS[attempts - 1]!,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      claimed_by: null,
      updated_at: now,
    });
    logger?.warn(
      { message: message.message_id, url: subscription.url, status: outcome.statusCode, err: outcome.error, attempts },
      giveUp ? `${this.what} delivery failed; giving up` : `${this.what} delivery failed; will retry`,
    );
    const since = await markFailing(db, subscription.id, at);
    const disableAfterMs = this.deps.disableAfterMs ?? DISABLE_AFTER_MS;
    if (since !== null && now - since >= disableAfterMs) {
      const reason = `every attempt failed since ${new Date(since).toISOString()} (last: ${outcome.error})`;
      await updateSubscription(db, subscription.id, { enabled: 0, disabled_reason: reason, updated_at: now });
      await failPendingMessages(db, subscription.id, 'the endpoint was disabled', now);
      logger?.warn(
        { subscription: subscription.id, url: subscription.url },
        `${this.what} endpoint disabled after ${Math.round(disableAfterMs / HOUR_MS / 24)} days of failures`,
      );
    }
  }
}
