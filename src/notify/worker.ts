/**
 * The delivery worker of chat notifications: the webhooks' DeliveryWorker over the notification outbox
 * (store/outboxes.ts), sending each message to its channel (send.ts). The same retry schedule as
 * webhooks (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), the same leases and takeover, messages of one
 * queue in order; a channel failing continuously for 3 days is disabled.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import { DAY_MS } from '../lib/time.js';
import type { Database } from '../store/database.js';
import { findChannel } from '../store/notifications.js';
import { notifyOutbox } from '../store/outboxes.js';
import { DEFAULT_TIMEOUT_MS, DeliveryWorker } from '../webhooks/delivery-worker.js';
import { UrlPolicy } from '../delivery/url-policy.js';
import { sendToChannel } from './send.js';

export const NOTIFY_DISABLE_AFTER_MS = 3 * DAY_MS;

export interface NotifyWorkerDeps {
  db: Kysely<Database>;
  clock: Clock;
  policy?: UrlPolicy;
  logger?: Logger;
  timeoutMs?: number;
  idlePollMs?: number;
  instanceId?: string;
}

export function notificationWorker(deps: NotifyWorkerDeps): DeliveryWorker {
  const policy = deps.policy ?? new UrlPolicy();
  const timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new DeliveryWorker({
    ...deps,
    db: notifyOutbox(deps.db),
    what: 'notification',
    disableAfterMs: NOTIFY_DISABLE_AFTER_MS,
    timeoutMs,
    send: async (subscription, message) => {
      const channel = await findChannel(deps.db, subscription.id);
      if (!channel) return { success: false, statusCode: null, error: 'the channel was removed', durationMs: 0 };
      return sendToChannel(policy, channel, message.body, timeoutMs);
    },
  });
}
