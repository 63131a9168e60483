/** Human-readable forms of a queue: its settings, then its pull requests in queue order. */
import type { Queue, QueueActivity, QueueRequest, QueueSettings } from '../client/index.js';
import { formatFields, formatTable } from './output.js';
import { formatEta } from './pr-format.js';
import { describeQueue } from './queue-address.js';

/** What an unset setting means, where "none" would mislead. */
const UNSET: Partial<Record<keyof QueueSettings, string>> = {
  requiredStatuses:
    "not set: the repository's required statuses apply (repo connect --required-status, its CI command, or the forge's branch protection)",
};

const show = (key: string, value: unknown): string =>
  value === null
    ? (UNSET[key as keyof QueueSettings] ?? 'null (none set)')
    : Array.isArray(value)
      ? value.length
        ? value.join(', ')
        : '[]'
      : typeof value === 'object'
        ? JSON.stringify(value) // freezes, nextFreeze
        : String(value);

/** Every setting under its wire name, which is also its option: batchingMinSize is --batching-min-size. */
export function formatSettings(settings: QueueSettings): string {
  return formatFields(Object.entries(settings).map(([k, v]) => [k, show(k, v)]));
}

/** What a change means beyond the settings (updateQueue's notes), after a blank line; '' when nothing. */
export const formatNotes = (notes: readonly string[] | undefined): string =>
  notes?.length ? `\n\n${notes.join('\n')}` : '';

/** Whether Terraform manages the queue (contract §2.10), as a line under its name; '' when it does not. */
export function formatManagement(m: Pick<QueueActivity, 'managedBy' | 'driftSince'>): string {
  if (m.managedBy !== 'terraform') return '';
  return m.driftSince === null
    ? 'Managed by Terraform: change its settings in the Terraform configuration.\n'
    : `Managed by Terraform, but changed outside Terraform since ${m.driftSince}: run terraform plan to see what differs.\n`;
}

/**
 * The queue's settings, then its pull requests in queue order from the dashboard's activity (which,
 * unlike getQueue, also lists the NOT_READY ones, last, with no position), each with its position (in
 * its lane in parallel mode), its estimated merge time and why it is there.
 */
export function formatQueue(
  q: Queue,
  address: QueueRequest,
  activity: Pick<QueueActivity, 'managedBy' | 'driftSince' | 'pullRequests'>,
  now = Date.now(),
): string {
  const { enqueuedPullRequests: _listed, ...settings } = q;
  const prs = activity.pullRequests;
  const why = (r: QueueActivity['pullRequests'][number]['explanation']) =>
    `${r.message}${r.detail !== undefined ? ` (${r.detail})` : ''}`;
  const list =
    prs.length === 0
      ? 'No pull requests in the queue.'
      : formatTable(
          ['#', 'PR', 'STATE', 'PRIORITY', 'SINCE', 'ETA', 'TITLE', 'WHY'],
          prs.map((pr) => [
            pr.position === null ? '-' : String(pr.position),
            `#${pr.prNumber}`,
            pr.state,
            pr.priorityName,
            pr.stateChangedAt,
            formatEta(pr, now),
            pr.prTitle,
            why(pr.explanation),
          ]),
        );
  return `Queue ${describeQueue(address)}\n${formatManagement(activity)}${formatSettings(settings)}\n\n${list}`;
}
