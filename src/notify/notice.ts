/**
 * What a chat message says, in words, whatever the chat: for a PR, its number and title, the outcome
 * and the reason (the sentences of pr-reason.ts, with the detail and the test run), who submitted it,
 * how long it was in the queue, and links to the PR on its forge and to its page in the dashboard; for
 * the queue, what changed. `noticeText` is the plain-text form (generic chat webhooks, and the
 * fallback text of Slack and Teams messages); slack.ts and teams.ts lay out the same facts.
 */
import type { NotifyEvent } from './events.js';

export interface PrNotice {
  number: number;
  title: string;
  author: string;
  /** The PR on its forge; null when its address is not known (a git forge without a PR URL template). */
  forgeUrl: string | null;
  /** The PR's page in the dashboard; null without the server's publicUrl. */
  dashboardUrl: string | null;
  /** `Failed: a required CI status failed.` */
  reason: string;
  /** Specifics: which status failed and how, the conflicting files, … */
  detail: string | null;
  testRunId: string | null;
  /** The failed check's link (its log), when CI reported one. */
  checkUrl: string | null;
  /** From submission to this event. */
  timeInQueueMs: number;
}

export interface Notice {
  event: NotifyEvent;
  /** `github.com/acme/web` */
  repo: string;
  branch: string;
  /** The queue's page in the dashboard; null without the server's publicUrl. */
  queueUrl: string | null;
  /** The PR the message is about; null for the queue's own events. */
  pr: PrNotice | null;
  at: number;
  /** A headline of its own instead of the event's (the test message). */
  title?: string;
  /** queue_frozen / queue_unfrozen: the freeze's reason, and when it ends (ended); null: no end known. */
  freeze?: { reason: string; until: number | null };
  /** status_quarantined / status_quarantine_lifted: which required status, whether automatic, why. */
  quarantine?: { status: string; automatic: boolean; reason: string };
}

const OUTCOME: Record<NotifyEvent, string> = {
  merged: 'merged',
  failed: 'failed',
  cancelled: 'was cancelled',
  pending_failure: 'is failing',
  queue_paused: 'paused',
  queue_resumed: 'resumed',
  queue_frozen: 'frozen',
  queue_unfrozen: 'unfrozen',
  status_quarantined: 'quarantined',
  status_quarantine_lifted: 'lifted the quarantine of',
};

/** `#42 Add login failed` or `Queue github.com/acme/web (main) paused`. */
export function headline(n: Notice): string {
  if (n.title !== undefined) return n.title;
  if (n.pr) return `#${n.pr.number} ${n.pr.title} ${OUTCOME[n.event]}`;
  if (n.quarantine) return quarantineHeadline(n, n.quarantine);
  return `Queue ${n.repo} (${n.branch}) ${OUTCOME[n.event]}${n.freeze ? freezeWords(n.event, n.freeze) : ''}`;
}

/**
 * `Queue github.com/acme/web (main) quarantined required status "lint" automatically: flaky in 6 of
 * its last 40 results (15%), …` — or `lifted the quarantine of …`.
 */
function quarantineHeadline(n: Notice, q: { status: string; automatic: boolean; reason: string }): string {
  const how = q.automatic ? ' automatically' : '';
  const what =
    n.event === 'status_quarantine_lifted'
      ? `lifted the quarantine of required status "${q.status}"${how}`
      : `quarantined required status "${q.status}"${how} (it no longer gates merges)`;
  return `Queue ${n.repo} (${n.branch}) ${what}: ${q.reason}`;
}

/** ` until 2026-11-24T18:00:00.000Z: release 2.4` (frozen) or ` (the freeze for release 2.4 ended)`. */
function freezeWords(event: NotifyEvent, f: { reason: string; until: number | null }): string {
  if (event === 'queue_unfrozen') return ` (the freeze for ${f.reason} ended)`;
  return `${f.until !== null ? ` until ${new Date(f.until).toISOString()}` : ''}: ${f.reason}`;
}

/** `Failed: a required CI status failed. greenline/ci: exit 1 (test run 1a2b3c4d)` */
export function reasonLine(pr: PrNotice): string {
  const detail = pr.detail ? ` ${pr.detail}` : '';
  const run = pr.testRunId ? ` (test run ${pr.testRunId.slice(0, 8)})` : '';
  return `${pr.reason}${detail}${run}`;
}

/** `submitted by alice · 12 min in the queue · github.com/acme/web (main)` */
export function contextLine(n: Notice): string {
  if (!n.pr) return `${n.repo} (${n.branch})`;
  return `submitted by ${n.pr.author || 'unknown'} · ${inWords(n.pr.timeInQueueMs)} in the queue · ${n.repo} (${n.branch})`;
}

/** The links of a notice, labelled, in order. */
export function links(n: Notice): { label: string; url: string }[] {
  const out: { label: string; url: string }[] = [];
  if (n.pr) {
    if (n.pr.forgeUrl) out.push({ label: 'Pull request', url: n.pr.forgeUrl });
    if (n.pr.dashboardUrl) out.push({ label: 'Dashboard', url: n.pr.dashboardUrl });
    if (n.pr.checkUrl) out.push({ label: 'Log', url: n.pr.checkUrl });
  } else if (n.queueUrl) {
    out.push({ label: 'Dashboard', url: n.queueUrl });
  }
  return out;
}

/** The whole notice as plain text, one fact a line. */
export function noticeText(n: Notice): string {
  const lines = [headline(n)];
  if (n.pr) lines.push(reasonLine(n.pr));
  lines.push(contextLine(n));
  for (const l of links(n)) lines.push(`${l.label}: ${l.url}`);
  return lines.join('\n');
}

/** `45 s`, `12 min`, `2 h 5 min`, `3 d 4 h`. */
export function inWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}
