/** The audit log's rows (migration 016): written one at a time, read newest first. One SQL operation per function. */
import type { Insertable, Kysely } from 'kysely';
import type { AuditEventRow, AuditEventsTable, Database } from './database.js';

export async function insertAuditEvent(db: Kysely<Database>, row: Insertable<AuditEventsTable>): Promise<void> {
  await db.insertInto('audit_events').values(row).execute();
}

export interface AuditEventFilter {
  orgId: string;
  /** `host/owner/name`, compared ignoring letter case. */
  repo?: string;
  targetBranch?: string;
  /** An actor's id or name. */
  actor?: string;
  action?: string;
  /** At or after this time (ms). */
  from?: number;
  /** At or before this time (ms). */
  to?: number;
  /** Only rows older than this one (the last row of the previous page), by (at, id). */
  before?: { at: number; id: number };
  limit: number;
}

/** The organization's rows that match, newest first, by (at, id). */
export async function listAuditEvents(db: Kysely<Database>, f: AuditEventFilter): Promise<AuditEventRow[]> {
  let q = db.selectFrom('audit_events').selectAll().where('org_id', '=', f.orgId);
  if (f.repo !== undefined) q = q.where('repo', '=', f.repo.toLowerCase());
  if (f.targetBranch !== undefined) q = q.where('target_branch', '=', f.targetBranch);
  if (f.actor !== undefined) {
    const actor = f.actor;
    q = q.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_name', '=', actor)]));
  }
  if (f.action !== undefined) q = q.where('action', '=', f.action);
  if (f.from !== undefined) q = q.where('at', '>=', f.from);
  if (f.to !== undefined) q = q.where('at', '<=', f.to);
  if (f.before) {
    const { at, id } = f.before;
    q = q.where((eb) => eb.or([eb('at', '<', at), eb.and([eb('at', '=', at), eb('id', '<', id)])]));
  }
  return q.orderBy('at', 'desc').orderBy('id', 'desc').limit(f.limit).execute();
}

/** The organization's row with this id, if any. */
export async function findAuditEvent(
  db: Kysely<Database>,
  orgId: string,
  id: number,
): Promise<AuditEventRow | undefined> {
  return db.selectFrom('audit_events').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
}
