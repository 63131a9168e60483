/** Webhook subscriptions and deliveries as the API shows them (times as ISO-8601). */
import type { DeliveryView, WebhookView } from '../../webhooks/admin.js';
import { iso } from '../../lib/time.js';

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function webhookOut(w: WebhookView) {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    createdAt: iso(w.createdAt),
  };
}

export function deliveryOut(d: DeliveryView) {
  return {
    id: d.id,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: isoOrNull(d.nextAttemptAt),
    waiting: d.waiting,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    createdAt: iso(d.createdAt),
    deliveredAt: isoOrNull(d.deliveredAt),
    payload: JSON.parse(d.body) as unknown,
    attemptLog: d.attemptLog.map((a) => ({ ...a, at: iso(a.at) })),
  };
}
