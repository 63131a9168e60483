/** Chat notification channels as the API shows them (times as ISO-8601). */
import type { ChannelView } from '../../notify/admin.js';
import { iso } from '../../lib/time.js';

export function channelOut(c: ChannelView) {
  return {
    id: c.id,
    kind: c.kind,
    url: c.url,
    queue: c.queue,
    events: c.events,
    enabled: c.enabled,
    disabledReason: c.disabledReason,
    failingSince: c.failingSince === null ? null : iso(c.failingSince),
    lastMessage: c.lastMessage ? { ...c.lastMessage, createdAt: iso(c.lastMessage.createdAt) } : null,
    createdAt: iso(c.createdAt),
  };
}
