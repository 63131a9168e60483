/**
 * A queue event's chat messages: in the transaction that stores the event (app/executor/queue-events.ts), each
 * enabled channel of the queue's org that covers the queue and chose the event gets one message in
 * the notification outbox, its body the exact payload to send (Slack blocks, a Teams card, or
 * `{ "text": … }`), written from what the store knows now: the PR, the transition's reason and detail,
 * the failed check. Messages of one queue keep their order (order key: the queue).
 */
import type { Kysely } from 'kysely';
import type { PrState, QueueEventPayload } from '../engine/types.js';
import type { RepoSite } from '../forge/links.js';
import { prWebUrl } from '../forges.js';
import type { Database, NotifyKind } from '../store/database.js';
import { findEntry } from '../store/entries.js';
import { enabledChannelsOfQueue } from '../store/notifications.js';
import { queueMessages } from '../delivery/messages.js';
import { notifyEventOf } from './events.js';
import { NOTIFY_TABLES } from './outbox.js';
import type { Notice, PrNotice } from './notice.js';
import { noticeText } from './notice.js';
import { slackMessage } from './slack.js';
import { teamsMessage } from './teams.js';

/** What the notices need from the service: the reason sentences and the failed checks' links. */
export interface ReasonWords {
  /** `Failed: a required CI status failed.` for a move to `to` with reason `code`. */
  sentence(to: PrState, code: string): string;
  /** The link of the failed required check of a run, when CI reported one. */
  failedCheckUrl(db: Kysely<Database>, runId: string): Promise<string | null>;
}

/** How notices are written: the words, and the server's public URL for dashboard links (null = none). */
export interface NoticeContext {
  words: ReasonWords;
  publicUrl: string | null;
}

/** The queue an event happened in, as the fan-out reads it: its repository's site and its branch. */
export interface EventQueue extends RepoSite {
  queueId: string;
  orgId: string;
  repoId: string;
  targetBranch: string;
}

const STATE_OF: Partial<Record<QueueEventPayload['type'], PrState>> = {
  'pull_request.merged': 'MERGED',
  'pull_request.failed': 'FAILED',
  'pull_request.canceled': 'CANCELLED',
  'pull_request.pending_failure': 'PENDING_FAILURE',
};

const dashboardPath = (q: EventQueue): string =>
  [q.host, q.owner, q.name, q.targetBranch].map(encodeURIComponent).join('/');

/** The payload a channel of `kind` is sent for a notice. */
export function messageBody(kind: NotifyKind, n: Notice): string {
  switch (kind) {
    case 'slack':
      return JSON.stringify(slackMessage(n));
    case 'teams':
      return JSON.stringify(teamsMessage(n));
    case 'chat':
      return JSON.stringify({ text: noticeText(n) });
  }
}

/** The notice of an event; null when the event is not announced or its PR is gone. */
export async function noticeOf(
  db: Kysely<Database>,
  q: EventQueue,
  event: QueueEventPayload,
  ctx: NoticeContext,
): Promise<Notice | null> {
  const kind = notifyEventOf(event.type);
  if (kind === null) return null;
  const base = ctx.publicUrl?.replace(/\/+$/, '') ?? null;
  const notice: Notice = {
    event: kind,
    repo: `${q.host}/${q.owner}/${q.name}`,
    branch: q.targetBranch,
    queueUrl: base && `${base}/#/queue/${dashboardPath(q)}`,
    pr: null,
    at: event.at,
    ...(event.freeze ? { freeze: event.freeze } : {}),
    ...(event.quarantine ? { quarantine: { ...event.quarantine } } : {}),
  };
  const to = STATE_OF[event.type];
  if (to === undefined) return notice;
  const n = event.prNumbers[0]!;
  const entry = await findEntry(db, q.queueId, n);
  if (!entry) return null;
  // The transition the event is about (the entry may have moved on since).
  const item = [...entry.timeline].reverse().find((t) => t.to === to && t.at <= event.at);
  const code = event.reason ?? item?.reason ?? entry.lastReason;
  const runId = event.runId ?? item?.runId ?? null;
  const pr: PrNotice = {
    number: n,
    title: entry.title,
    author: entry.author,
    forgeUrl: prWebUrl(q, n),
    dashboardUrl: base && `${base}/#/pr/${dashboardPath(q)}/${n}`,
    reason: ctx.words.sentence(to, code),
    detail: item?.detail ?? null,
    testRunId: runId,
    checkUrl: code === 'TEST_RUN_REQUIRED_STATUS_FAILED' && runId ? await ctx.words.failedCheckUrl(db, runId) : null,
    timeInQueueMs: event.at - entry.submittedAt,
  };
  return { ...notice, pr };
}

/** Queues the event's messages; returns how many. */
export async function queueNotifications(
  trx: Kysely<Database>,
  q: EventQueue,
  eventId: number,
  event: QueueEventPayload,
  at: number,
  ctx: NoticeContext,
): Promise<number> {
  const kind = notifyEventOf(event.type);
  if (kind === null) return 0;
  const channels = (await enabledChannelsOfQueue(trx, q.orgId, q.repoId, q.targetBranch)).filter((c) =>
    (JSON.parse(c.events) as string[]).includes(kind),
  );
  if (channels.length === 0) return 0;
  const notice = await noticeOf(trx, q, event, ctx);
  if (notice === null) return 0;
  await queueMessages(
    trx,
    NOTIFY_TABLES,
    channels.map((c) => ({
      subscription_id: c.id,
      queue_id: q.queueId,
      event_id: eventId,
      event_type: kind,
      // One queue's messages keep their order.
      order_key: q.queueId,
      body: messageBody(c.kind, notice),
    })),
    at,
  );
  return channels.length;
}
