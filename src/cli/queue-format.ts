/** Human-readable forms of a queue: its settings, then its pull requests in queue order. */
import type { Queue, QueueRequest, QueueSettings } from '../client/index.js';
import { formatFields, formatTable } from './output.js';
import { describeQueue } from './queue-address.js';

const show = (value: unknown): string =>
  value === null ? 'null (none set)' : Array.isArray(value) ? (value.length ? value.join(', ') : '[]') : String(value);

/** Every setting under its wire name, which is also its option: batchingMinSize is --batching-min-size. */
export function formatSettings(settings: QueueSettings): string {
  return formatFields(Object.entries(settings).map(([k, v]) => [k, show(v)]));
}

export function formatQueue(q: Queue, address: QueueRequest): string {
  const { enqueuedPullRequests: prs, ...settings } = q;
  const list = prs.length === 0
    ? 'No pull requests in the queue (NOT_READY ones are not listed).'
    : formatTable(['#', 'PR', 'STATE', 'PRIORITY', 'SINCE', 'TITLE'], prs.map((pr, i) => [
      String(i + 1), `#${pr.prNumber}`, pr.state, pr.priorityName, pr.stateChangedAt, pr.prTitle,
    ]));
  return `Queue ${describeQueue(address)}\n${formatSettings(settings)}\n\n${list}`;
}
