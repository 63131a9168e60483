/**
 * The audit log (docs/audit-log.md): one row per change — when, who (actor kind, id and name), what
 * (action, target and changes as JSON) and from where (source as JSON). `repo` (`host/owner/name`)
 * and `target_branch` are copies of the target's for filtering. Read newest first by (at, id), per
 * organization; deleted after the server's retentionDays (store/retention.ts).
 */
import type { Migration } from 'kysely';
import { withAutoId } from '../dialect.js';

export const auditEvents: Migration = {
  async up(db): Promise<void> {
    await withAutoId(db, db.schema.createTable('audit_events'))
      .addColumn('org_id', 'text', (c) => c.notNull())
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor_kind', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('actor_name', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('repo', 'text')
      .addColumn('target_branch', 'text')
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('changes', 'text')
      .addColumn('source', 'text')
      .execute();
    await db.schema.createIndex('audit_events_org_at').on('audit_events').columns(['org_id', 'at', 'id']).execute();
    await db.schema
      .createIndex('audit_events_org_repo_at')
      .on('audit_events')
      .columns(['org_id', 'repo', 'target_branch', 'at', 'id'])
      .execute();
    await db.schema
      .createIndex('audit_events_org_action_at')
      .on('audit_events')
      .columns(['org_id', 'action', 'at', 'id'])
      .execute();
    await db.schema.createIndex('audit_events_at').on('audit_events').column('at').execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropTable('audit_events').execute();
  },
};
