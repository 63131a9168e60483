/**
 * Chat channels of an organization: add, list (with how the latest message went), remove, test.
 * Shared by the CLI (every org, `orgId` null) and the API (the caller's org: a channel of another org
 * is "not found"). Errors are ServiceError. The URL is checked by the delivery URL policy (src/delivery).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hostOf, recordAudit, type AuditAction, type AuditCaller } from '../audit/audit-log.js';
import { ServiceError } from '../lib/errors.js';
import type { Clock } from '../lib/clock.js';
import { DEFAULT_TIMEOUT_MS } from '../delivery/http-post.js';
import { latestMessages } from '../delivery/messages.js';
import { UrlPolicy, WebhookUrlError } from '../delivery/url-policy.js';
import type { Database, DeliveryMessageRow, NotifyKind, NotifySubscriptionRow } from '../store/database.js';
import { deleteChannel, findChannel, insertChannel, listChannels, updateChannel } from '../store/notifications.js';
import { findRepo, findRepoById } from '../store/repos.js';
import type { NotifyEvent } from './events.js';
import { NOTIFY_KINDS, parseNotifyEvents } from './events.js';
import { messageBody } from './fan-out.js';
import type { Notice } from './notice.js';
import { NOTIFY_TABLES } from './outbox.js';
import { sendToChannel } from './send.js';

export interface ChannelView {
  id: string;
  org: string;
  kind: NotifyKind;
  url: string;
  /** The one queue it covers; null = every queue of the org. */
  queue: { repo: string; branch: string } | null;
  events: NotifyEvent[];
  enabled: boolean;
  disabledReason: string | null;
  /** When its current run of failed attempts began; null when the last attempt succeeded. */
  failingSince: number | null;
  /** How its latest message went; null before the first. */
  lastMessage: {
    event: string;
    status: 'pending' | 'delivered' | 'failed';
    attempts: number;
    lastError: string | null;
    createdAt: number;
  } | null;
  createdAt: number;
}

export interface AddChannelRequest {
  kind: string;
  url: string;
  /** `HOST/OWNER/NAME` and branch: one queue; both absent: every queue of the org. */
  repo?: string | null;
  branch?: string | null;
  events?: readonly string[] | string | null;
}

export interface NotifyAdminDeps {
  db: Kysely<Database>;
  clock: Clock;
  policy?: UrlPolicy;
}

export class NotifyAdmin {
  private readonly policy: UrlPolicy;

  constructor(private readonly deps: NotifyAdminDeps) {
    this.policy = deps.policy ?? new UrlPolicy();
  }

  async add(org: { id: string; name: string }, req: AddChannelRequest, by: AuditCaller): Promise<ChannelView> {
    if (!(NOTIFY_KINDS as readonly string[]).includes(req.kind)) {
      throw new ServiceError(
        'VALIDATION_FAILED',
        `unknown channel kind ${JSON.stringify(req.kind)}; use one of ${NOTIFY_KINDS.join(', ')}`,
      );
    }
    let url: URL;
    try {
      url = this.policy.check(req.url);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw new ServiceError('WEBHOOK_URL_REJECTED', err.message);
      throw err;
    }
    if (Boolean(req.repo) !== Boolean(req.branch)) {
      throw new ServiceError(
        'VALIDATION_FAILED',
        'give both repo (HOST/OWNER/NAME) and branch for one queue, or neither for every queue of the organization',
      );
    }
    let repoId: string | null = null;
    if (req.repo) {
      const [host, owner, name, ...rest] = req.repo.split('/');
      const repo =
        host && owner && name && rest.length === 0 ? await findRepo(this.deps.db, host, owner, name) : undefined;
      if (!repo || repo.org_id !== org.id) throw new ServiceError('REPO_NOT_FOUND', req.repo);
      repoId = repo.id;
    }
    const now = this.deps.clock.now();
    const row: NotifySubscriptionRow = {
      id: randomUUID(),
      org_id: org.id,
      kind: req.kind as NotifyKind,
      url: url.href,
      repo_id: repoId,
      target_branch: req.branch || null,
      events: JSON.stringify(parseNotifyEvents(req.events)),
      enabled: 1,
      disabled_reason: null,
      failing_since: null,
      created_at: now,
      updated_at: now,
    };
    await this.deps.db.transaction().execute(async (trx) => {
      await insertChannel(trx, row);
      await this.audit(
        trx,
        row,
        'notification_channel.create',
        by,
        req.repo ? { repo: req.repo, targetBranch: req.branch } : {},
      );
    });
    return (await this.views([row], () => org.name))[0]!;
  }

  /** The channels of `org` (or of every org, `org` null), with their org's name from `nameOf`. */
  async list(orgId: string | undefined, nameOf: (orgId: string) => string | Promise<string>): Promise<ChannelView[]> {
    return this.views(await listChannels(this.deps.db, orgId), nameOf);
  }

  /** The channel `id`, of `orgId` unless null; else NOTIFICATION_CHANNEL_NOT_FOUND. */
  async find(orgId: string | null, id: string): Promise<NotifySubscriptionRow> {
    const row = await findChannel(this.deps.db, id);
    if (!row || (orgId !== null && row.org_id !== orgId)) throw new ServiceError('NOTIFICATION_CHANNEL_NOT_FOUND', id);
    return row;
  }

  async remove(orgId: string | null, id: string, by: AuditCaller): Promise<void> {
    const row = await this.find(orgId, id);
    await this.deps.db.transaction().execute(async (trx) => {
      await deleteChannel(trx, id);
      await this.audit(trx, row, 'notification_channel.delete', by);
    });
  }

  /** Enables a channel that was disabled after 3 days of failures. */
  async enable(orgId: string | null, id: string, by: AuditCaller): Promise<void> {
    const row = await this.find(orgId, id);
    await this.deps.db.transaction().execute(async (trx) => {
      await updateChannel(trx, id, {
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        updated_at: this.deps.clock.now(),
      });
      await this.audit(trx, row, 'notification_channel.enable', by);
    });
  }

  /**
   * Records a change of channel `row` by `by`: the log names it by id, kind and its URL's host only
   * (a Slack or Teams URL is itself the secret).
   */
  private audit(
    db: Kysely<Database>,
    row: NotifySubscriptionRow,
    action: AuditAction,
    by: AuditCaller,
    more: Record<string, unknown> = {},
  ): Promise<void> {
    return recordAudit(db, {
      orgId: row.org_id,
      at: this.deps.clock.now(),
      by,
      action,
      target: { channel: row.id, kind: row.kind, host: hostOf(row.url), ...more },
    });
  }

  /**
   * Sends a test message to the channel now (not through the outbox) and says how it went: the
   * HTTP status, or the error.
   */
  async test(
    orgId: string | null,
    id: string,
  ): Promise<{ ok: boolean; statusCode: number | null; error: string | null }> {
    const channel = await this.find(orgId, id);
    const repo = channel.repo_id ? await findRepoById(this.deps.db, channel.repo_id) : undefined;
    const events = (JSON.parse(channel.events) as string[]).join(', ');
    const notice: Notice = {
      event: 'queue_resumed',
      title: `greenline test message: this channel receives ${events}`,
      repo: repo ? `${repo.host}/${repo.owner}/${repo.name}` : 'every queue',
      branch: channel.target_branch ?? `organization's queues`,
      queueUrl: null,
      pr: null,
      at: this.deps.clock.now(),
    };
    const body = messageBody(channel.kind, notice);
    const outcome = await sendToChannel(this.policy, channel, body, DEFAULT_TIMEOUT_MS);
    return { ok: outcome.success, statusCode: outcome.statusCode, error: outcome.error };
  }

  private async views(
    rows: NotifySubscriptionRow[],
    nameOf: (orgId: string) => string | Promise<string>,
  ): Promise<ChannelView[]> {
    const latest = await latestMessages(
      this.deps.db,
      NOTIFY_TABLES,
      rows.map((r) => r.id),
    );
    const out: ChannelView[] = [];
    for (const r of rows) {
      const repo = r.repo_id ? await findRepoById(this.deps.db, r.repo_id) : undefined;
      out.push(
        viewOf(r, await nameOf(r.org_id), repo ? `${repo.host}/${repo.owner}/${repo.name}` : null, latest.get(r.id)),
      );
    }
    return out;
  }
}

function viewOf(
  r: NotifySubscriptionRow,
  org: string,
  repo: string | null,
  last: DeliveryMessageRow | undefined,
): ChannelView {
  return {
    id: r.id,
    org,
    kind: r.kind,
    url: r.url,
    queue: repo !== null && r.target_branch !== null ? { repo, branch: r.target_branch } : null,
    events: JSON.parse(r.events) as NotifyEvent[],
    enabled: r.enabled === 1,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    lastMessage: last
      ? {
          event: last.event_type,
          status: last.status,
          attempts: last.attempts,
          lastError: last.last_error,
          createdAt: last.created_at,
        }
      : null,
    createdAt: r.created_at,
  };
}
