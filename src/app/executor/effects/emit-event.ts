/**
 * emitEvent: the queue event is stored in queue_events and fanned out to webhook subscriptions and
 * chat channels (queue-events.ts), then shown on the forge, with why each PR is where it is (its reason
 * in words) and where the PRs stand for the events of PRs still in the queue.
 */
import { findEntry } from '../../../store/entries.js';
import { forgeFor } from '../../adapters.js';
import { prReason } from '../../../engine/pr-reason.js';
import { outlookOf } from '../pr-outlook.js';
import { recordQueueEvent } from '../queue-events.js';
import { queueConfigOf } from '../snapshot-io.js';
import type { EffectHandler } from './effect-handler.js';

/** The events of PRs still in the queue: the forge shows where they stand and when they should merge. */
const OUTLOOK_EVENTS: ReadonlySet<string> = new Set([
  'pull_request.submitted',
  'pull_request.queued',
  'pull_request.testing',
  'pull_request.pending_failure',
]);

export const emitEvent: EffectHandler<'emitEvent'> = {
  async perform(ctx, effect) {
    const { db, queueId, queue, binding, clock } = ctx;
    const queued = await recordQueueEvent(db, queueId, effect.key, effect.event, clock.now(), ctx.notices);
    if (queued.webhooks > 0) ctx.onWebhookMessages?.();
    if (queued.notifications > 0) ctx.onNotifications?.();
    const forge = forgeFor(ctx.adapters, binding);
    if (forge.onQueueEvent) {
      const waiting = OUTLOOK_EVENTS.has(effect.event.type);
      const outlook = waiting ? await outlookOf(db, queueId, await ctx.executor.read(queueId), clock.now()) : undefined;
      const config = queueConfigOf(queue);
      const reasons = new Map<number, { message: string; detail?: string }>();
      if (effect.event.type.startsWith('pull_request.')) {
        for (const n of effect.event.prNumbers) {
          const entry = await findEntry(db, queueId, n);
          if (!entry) continue;
          const { message, detail } = prReason({ targetBranch: queue.target_branch, config }, entry);
          reasons.set(n, { message, ...(detail !== undefined ? { detail } : {}) });
        }
      }
      await forge.onQueueEvent(
        binding,
        { targetBranch: queue.target_branch, config, ...(outlook ? { outlook } : {}), reasons },
        effect.event,
      );
    }
    return null;
  },
};
