/**
 * Reading the audit log (docs/audit-log.md), for the API (`POST /v1/listAuditEvents`), the CLI
 * (`greenline audit`) and the dashboard: an organization's entries matching the filters, newest
 * first, a page at a time. Filters arrive as text; a bad one is a VALIDATION_FAILED naming the field.
 */
import type { Kysely } from 'kysely';
import { ServiceError } from '../lib/errors.js';
import { findAuditEvent, listAuditEvents } from '../store/audit-events.js';
import type { AuditEventRow, Database } from '../store/database.js';
import { AUDIT_ACTIONS, isAuditAction, type AuditActor, type AuditChange, type AuditSource } from './audit-log.js';

export interface AuditQuery {
  /** `host/owner/name`. */
  repo?: string;
  targetBranch?: string;
  /** An actor's id or name (a token's id or name, a forge login, an OS user, `system`). */
  actor?: string;
  action?: string;
  /** ISO-8601 times, inclusive. */
  from?: string;
  to?: string;
  cursor?: string;
  take?: number;
}

export interface AuditEventView {
  /** ISO-8601. */
  at: string;
  actor: AuditActor;
  action: string;
  target: Record<string, unknown>;
  changes: Record<string, AuditChange> | null;
  source: AuditSource | null;
}

export interface AuditPage {
  events: AuditEventView[];
  /** Present when there are older entries: pass it as `cursor` for the next page. */
  nextCursor?: string;
}

export const DEFAULT_TAKE = 50;
export const MAX_TAKE = 100;

const invalid = (message: string): ServiceError => new ServiceError('VALIDATION_FAILED', message);

function timeOf(value: string | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms))
    throw invalid(`${field} must be an ISO-8601 date-time such as 2026-01-31T12:00:00Z, not ${JSON.stringify(value)}`);
  return ms;
}

function viewOf(row: AuditEventRow): AuditEventView {
  return {
    at: new Date(row.at).toISOString(),
    actor: { kind: row.actor_kind as AuditActor['kind'], id: row.actor_id, name: row.actor_name },
    action: row.action,
    target: JSON.parse(row.target) as Record<string, unknown>,
    changes: row.changes === null ? null : (JSON.parse(row.changes) as Record<string, AuditChange>),
    source: row.source === null ? null : (JSON.parse(row.source) as AuditSource),
  };
}

/** The organization's entries matching `query`, newest first; `fieldOf` names a filter as the caller spells it. */
export async function readAuditLog(
  db: Kysely<Database>,
  orgId: string,
  query: AuditQuery,
  fieldOf: (name: keyof AuditQuery) => string = (name) => name,
): Promise<AuditPage> {
  const take = query.take ?? DEFAULT_TAKE;
  if (!Number.isInteger(take) || take < 1 || take > MAX_TAKE)
    throw invalid(`${fieldOf('take')} must be an integer from 1 to ${MAX_TAKE}`);
  if (query.action !== undefined && !isAuditAction(query.action))
    throw invalid(
      `${fieldOf('action')} ${JSON.stringify(query.action)} is not an action the audit log records; known: ${Object.keys(AUDIT_ACTIONS).join(', ')}`,
    );
  if (query.repo !== undefined && !/^[^/\s]+\/[^/\s]+\/[^/\s]+$/.test(query.repo))
    throw invalid(`${fieldOf('repo')} must name a repository as HOST/OWNER/NAME, e.g. github.com/acme/web`);
  const from = timeOf(query.from, fieldOf('from'));
  const to = timeOf(query.to, fieldOf('to'));
  if (from !== undefined && to !== undefined && from > to)
    throw invalid(`${fieldOf('from')} must not be later than ${fieldOf('to')}`);
  let before: { at: number; id: number } | undefined;
  if (query.cursor !== undefined) {
    const last = /^\d{1,15}$/.test(query.cursor) ? await findAuditEvent(db, orgId, Number(query.cursor)) : undefined;
    if (!last)
      throw invalid(`${fieldOf('cursor')} is not a nextCursor returned by listAuditEvents for this organization`);
    before = { at: last.at, id: last.id };
  }
  const rows = await listAuditEvents(db, {
    orgId,
    limit: take + 1,
    ...(query.repo !== undefined ? { repo: query.repo } : {}),
    ...(query.targetBranch !== undefined ? { targetBranch: query.targetBranch } : {}),
    ...(query.actor !== undefined ? { actor: query.actor } : {}),
    ...(query.action !== undefined ? { action: query.action } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(before ? { before } : {}),
  });
  const page = rows.slice(0, take);
  return rows.length > take
    ? { events: page.map(viewOf), nextCursor: String(page[page.length - 1]!.id) }
    : { events: page.map(viewOf) };
}
