/**
 * Webhook subscriptions of an organization: add, list, remove, rotate the secret, enable again, list
 * deliveries with their attempts, redeliver. Shared by the CLI (every org, `orgId` null) and the API
 * (the caller's org: a subscription or delivery of another org is "not found"). Errors are ServiceError.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../lib/clock.js';
import { hostOf, recordAudit, type AuditAction, type AuditCaller } from '../audit/audit-log.js';
import { ServiceError } from '../lib/errors.js';
import { listAttempts } from '../delivery/attempts.js';
import { findMessage, heldMessageIds, listMessages, updateMessage } from '../delivery/messages.js';
import { generateSecret } from '../delivery/signing.js';
import { UrlPolicy, WebhookUrlError } from '../delivery/url-policy.js';
import { waitingReason } from '../delivery/waiting.js';
import type { Database, DeliveryAttemptRow, DeliveryMessageRow, WebhookSubscriptionRow } from '../store/database.js';
import {
  deleteSubscription,
  findSubscription,
  insertSubscription,
  listSubscriptions,
  updateSubscription,
} from '../store/webhooks.js';
import { FILTERABLE_EVENT_TYPES } from './events.js';
import { WEBHOOK_TABLES } from './outbox.js';

export interface WebhookView {
  id: string;
  org: string;
  url: string;
  /** null = every event type. */
  events: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
}

export interface AttemptView {
  at: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  success: boolean;
  manual: boolean;
}

export interface DeliveryView {
  /** The `webhook-id` of the message. */
  id: string;
  eventType: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: number | null;
  /** Why it is pending and when it goes, in words; null when not pending. */
  waiting: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
  body: string;
  attemptLog: AttemptView[];
}

export interface WebhookAdminDeps {
  db: Kysely<Database>;
  clock: Clock;
  policy?: UrlPolicy;
  /** Told when deliveries became due (a redelivery), to wake the delivery worker. */
  onWork?: () => void;
}

export function viewOf(row: WebhookSubscriptionRow, orgName: string): WebhookView {
  return {
    id: row.id,
    org: orgName,
    url: row.url,
    events: row.events === null ? null : (JSON.parse(row.events) as string[]),
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
  };
}

function deliveryOf(m: DeliveryMessageRow, attempts: DeliveryAttemptRow[], held: boolean): DeliveryView {
  return {
    id: m.message_id,
    eventType: m.event_type,
    status: m.status,
    attempts: m.attempts,
    nextAttemptAt: m.status === 'pending' ? m.next_attempt_at : null,
    waiting: waitingReason(m, held),
    lastStatusCode: m.last_status_code,
    lastError: m.last_error,
    createdAt: m.created_at,
    deliveredAt: m.delivered_at,
    body: m.body,
    attemptLog: attempts.map((a) => ({
      at: a.attempted_at,
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      success: a.success === 1,
      manual: a.manual === 1,
    })),
  };
}

/** The event types as given: a list of known types, or null for all of Trunk's; throws naming an unknown one. */
export function parseEventTypes(events: readonly string[] | undefined | null): string[] | null {
  if (events === undefined || events === null) return null;
  const list = [...new Set(events.map((e) => e.trim()).filter((e) => e !== ''))];
  if (list.length === 0) return null;
  for (const e of list) {
    if (!(FILTERABLE_EVENT_TYPES as readonly string[]).includes(e)) {
      throw new ServiceError(
        'VALIDATION_FAILED',
        `unknown webhook event type ${JSON.stringify(e)}; known: ${FILTERABLE_EVENT_TYPES.join(', ')}`,
      );
    }
  }
  return list;
}

export class WebhookAdmin {
  private readonly policy: UrlPolicy;

  constructor(private readonly deps: WebhookAdminDeps) {
    this.policy = deps.policy ?? new UrlPolicy();
  }

  /** Subscribes `url` for `by`; the returned secret is the only time it is shown. */
  async create(
    org: { id: string; name: string },
    url: string,
    events: readonly string[] | null | undefined,
    by: AuditCaller,
  ): Promise<{ webhook: WebhookView; secret: string }> {
    let parsed: URL;
    try {
      parsed = this.policy.check(url);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw new ServiceError('WEBHOOK_URL_REJECTED', err.message);
      throw err;
    }
    const types = parseEventTypes(events);
    const now = this.deps.clock.now();
    const row: WebhookSubscriptionRow = {
      id: randomUUID(),
      org_id: org.id,
      url: parsed.href,
      secret: generateSecret(),
      events: types === null ? null : JSON.stringify(types),
      enabled: 1,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    await this.deps.db.transaction().execute(async (trx) => {
      await insertSubscription(trx, row);
      await this.audit(trx, row, 'webhook.create', by, types === null ? {} : { events: types });
    });
    return { webhook: viewOf(row, org.name), secret: row.secret };
  }

  async list(org: { id: string; name: string }): Promise<WebhookView[]> {
    return (await listSubscriptions(this.deps.db, org.id)).map((r) => viewOf(r, org.name));
  }

  /** The subscription `id`, of `orgId` unless null; else WEBHOOK_NOT_FOUND. */
  async find(orgId: string | null, id: string): Promise<WebhookSubscriptionRow> {
    const row = await findSubscription(this.deps.db, id);
    if (!row || (orgId !== null && row.org_id !== orgId)) throw new ServiceError('WEBHOOK_NOT_FOUND', id);
    return row;
  }

  async remove(orgId: string | null, id: string, by: AuditCaller): Promise<void> {
    const row = await this.find(orgId, id);
    await this.deps.db.transaction().execute(async (trx) => {
      await deleteSubscription(trx, id);
      await this.audit(trx, row, 'webhook.delete', by);
    });
  }

  /** A new secret, effective for the next attempt; the old one stops working at once. */
  async rotateSecret(orgId: string | null, id: string, by: AuditCaller): Promise<string> {
    const row = await this.find(orgId, id);
    const secret = generateSecret();
    await this.deps.db.transaction().execute(async (trx) => {
      await updateSubscription(trx, id, { secret, updated_at: this.deps.clock.now() });
      await this.audit(trx, row, 'webhook.rotate_secret', by);
    });
    return secret;
  }

  /** Enables a disabled subscription again (new events are delivered; redeliver given-up ones). */
  async enable(orgId: string | null, id: string, by: AuditCaller): Promise<void> {
    const row = await this.find(orgId, id);
    await this.deps.db.transaction().execute(async (trx) => {
      await updateSubscription(trx, id, {
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        updated_at: this.deps.clock.now(),
      });
      await this.audit(trx, row, 'webhook.enable', by);
    });
  }

  /** The subscription's latest deliveries, newest first, with every attempt. */
  async deliveries(orgId: string | null, id: string, limit = 50): Promise<DeliveryView[]> {
    await this.find(orgId, id);
    const messages = await listMessages(this.deps.db, WEBHOOK_TABLES, id, limit);
    const attempts = await listAttempts(
      this.deps.db,
      WEBHOOK_TABLES,
      messages.map((m) => m.message_id),
    );
    const held = await heldMessageIds(this.deps.db, WEBHOOK_TABLES, messages);
    return messages.map((m) =>
      deliveryOf(
        m,
        attempts.filter((a) => a.message_id === m.message_id),
        held.has(m.message_id),
      ),
    );
  }

  /**
   * Sends a delivery again, whatever its state, with the same `webhook-id` and body: it becomes
   * pending and due now, with the whole retry schedule ahead of it.
   */
  async redeliver(orgId: string | null, deliveryId: string, by: AuditCaller): Promise<void> {
    const m = await findMessage(this.deps.db, WEBHOOK_TABLES, deliveryId);
    const sub = m && (await findSubscription(this.deps.db, m.subscription_id));
    if (!m || !sub || (orgId !== null && sub.org_id !== orgId))
      throw new ServiceError('WEBHOOK_DELIVERY_NOT_FOUND', deliveryId);
    if (sub.enabled !== 1) {
      throw new ServiceError(
        'WEBHOOK_DISABLED',
        `webhook ${sub.id} is disabled (${sub.disabled_reason ?? 'no reason recorded'}); enable it first`,
      );
    }
    const now = this.deps.clock.now();
    await this.deps.db.transaction().execute(async (trx) => {
      await updateMessage(trx, WEBHOOK_TABLES, deliveryId, {
        status: 'pending',
        attempts: 0,
        manual: 1,
        next_attempt_at: now,
        updated_at: now,
      });
      await this.audit(trx, sub, 'webhook.redeliver', by, { delivery: deliveryId, eventType: m.event_type });
    });
    this.deps.onWork?.();
  }

  /** Records a change of subscription `row` by `by`: the log names it by id and its URL's host only. */
  private audit(
    db: Kysely<Database>,
    row: WebhookSubscriptionRow,
    action: AuditAction,
    by: AuditCaller,
    more: Record<string, unknown> = {},
  ): Promise<void> {
    return recordAudit(db, {
      orgId: row.org_id,
      at: this.deps.clock.now(),
      by,
      action,
      target: { webhook: row.id, host: hostOf(row.url), ...more },
    });
  }
}
