/**
 * The audit log (docs/audit-log.md): who changed what, when, and from where. `recordAudit` is the one
 * way a change is written to it, by the service (in the change's own transaction where there is one),
 * the webhook and chat channel administration, the CLI's admin commands and the queue executor for the
 * queue's own decisions. Secrets never reach it: callers name webhooks and chat channels by id and
 * host only (`hostOf`), tokens by id and name, and the source holds no header but the user agent and
 * `x-source`.
 */
import type { Kysely } from 'kysely';
import { insertAuditEvent } from '../store/audit-events.js';
import type { Database } from '../store/database.js';

/** Every action the log records, with what it means (docs/audit-log.md lists them from here). */
export const AUDIT_ACTIONS = {
  'pull_request.submit': 'a pull request was submitted to a queue (again)',
  'pull_request.cancel': 'a pull request was taken out of a queue; `target.reason` says why',
  'pull_request.restart': "a pull request's tests were restarted",
  'pull_request.merged_outside': 'a queued pull request was merged outside the queue (the queue noticed)',
  'pull_request.set_impacted_targets': "a pull request's impacted targets were uploaded",
  'test_run.report_status': 'a CI status was reported for a test run',
  'queue.create': 'a queue was created',
  'queue.delete': 'a queue was deleted',
  'queue.update': "a queue's settings were changed; `changes` holds each setting's old and new value",
  'queue.pause': 'a queue was paused',
  'queue.resume': 'a queue was set running again',
  'queue.drain': 'a queue was set draining',
  'queue.state_change': 'the queue changed its own state (a mode switch finished); `changes.state` says how',
  'queue.status_quarantine':
    'the queue quarantined a flaky required status by itself (autoQuarantine); `target.status` and `target.reason` say which and why',
  'queue.status_quarantine_lift':
    'the queue lifted its automatic quarantine of a required status; `target.status` and `target.reason` say which and why',
  'token.create': 'an API token was created',
  'token.revoke': 'an API token was revoked',
  'webhook.create': 'a webhook subscription was created',
  'webhook.delete': 'a webhook subscription was deleted',
  'webhook.rotate_secret': "a webhook subscription's signing secret was replaced",
  'webhook.enable': 'a disabled webhook subscription was enabled again',
  'webhook.redeliver': 'a webhook delivery was sent again',
  'notification_channel.create': 'a chat notification channel was created',
  'notification_channel.delete': 'a chat notification channel was deleted',
  'notification_channel.enable': 'a disabled chat notification channel was enabled again',
  'repo.connect': 'a repository was connected (or its binding changed)',
  'repo.disconnect': 'a repository was disconnected, its queues deleted',
  'org.create': 'an organization was created',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

export const isAuditAction = (name: string): name is AuditAction => Object.hasOwn(AUDIT_ACTIONS, name);

/** Who made a change: an API token, a user of the forge (comment command, label), the CLI's OS user, or greenline itself. */
export const ACTOR_KINDS = ['token', 'forge_user', 'cli', 'system'] as const;

export interface AuditActor {
  kind: (typeof ACTOR_KINDS)[number];
  id: string;
  name: string;
}

/** Where a request came from. */
export interface AuditSource {
  /** The client's address (the proxy's, unless the server trusts the proxy's forwarded headers). */
  address?: string;
  userAgent?: string;
  /** The `x-source` header (Terraform's provider sends one). */
  xSource?: string;
}

/**
 * Who made a change, as the caller knows it. An API caller's context (app/request-scope.ts) has the
 * token's id and name, and the forge user for comment commands and labels; the CLI names its OS user;
 * `SYSTEM` is greenline's own decision.
 */
export interface AuditCaller {
  tokenId?: string;
  tokenName?: string;
  forgeUser?: string;
  cliUser?: string;
  system?: true;
  source?: AuditSource;
}

export const SYSTEM: AuditCaller = { system: true };

export function actorOf(by: AuditCaller): AuditActor {
  if (by.forgeUser !== undefined) return { kind: 'forge_user', id: by.forgeUser, name: by.forgeUser };
  if (by.cliUser !== undefined) return { kind: 'cli', id: by.cliUser, name: by.cliUser };
  if (by.system || by.tokenId === undefined) return { kind: 'system', id: 'system', name: 'greenline' };
  return { kind: 'token', id: by.tokenId, name: by.tokenName ?? by.tokenId };
}

/**
 * What a change concerns. `repo` (`host/owner/name`) and `targetBranch` are what the log filters on;
 * the rest names the PR, token, webhook, channel … by id, and why when the queue acted itself.
 */
export interface AuditTarget {
  org?: string;
  repo?: string;
  targetBranch?: string;
  [key: string]: unknown;
}

/** A setting's old and new value. */
export interface AuditChange {
  from: unknown;
  to: unknown;
}

export interface AuditEntry {
  orgId: string;
  at: number;
  by: AuditCaller;
  action: AuditAction;
  target: AuditTarget;
  changes?: Record<string, AuditChange>;
}

/** Writes one change to the log, with `db` the change's transaction where it has one. */
export async function recordAudit(db: Kysely<Database>, entry: AuditEntry): Promise<void> {
  const actor = actorOf(entry.by);
  const changes = entry.changes && Object.keys(entry.changes).length > 0 ? entry.changes : null;
  const source = entry.by.source && Object.keys(entry.by.source).length > 0 ? entry.by.source : null;
  await insertAuditEvent(db, {
    org_id: entry.orgId,
    at: entry.at,
    actor_kind: actor.kind,
    actor_id: actor.id,
    actor_name: actor.name,
    action: entry.action,
    repo: entry.target.repo?.toLowerCase() ?? null,
    target_branch: entry.target.targetBranch ?? null,
    target: JSON.stringify(entry.target),
    changes: changes && JSON.stringify(changes),
    source: source && JSON.stringify(source),
  });
}

/** Each key whose value differs between `before` and `after`, with both values. */
export function changesOf(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
): Record<string, AuditChange> {
  const out: Record<string, AuditChange> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const from = before[key] ?? null;
    const to = after[key] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) out[key] = { from, to };
  }
  return out;
}

/** The host of a URL, all the log keeps of webhook and chat URLs (a Slack or Teams URL is itself a secret). */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(not a URL)';
  }
}
