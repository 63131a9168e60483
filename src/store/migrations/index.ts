/**
 * The one migration set, run on SQLite and PostgreSQL alike. Migrations are in code (no files to find
 * at run time) and named so that they sort in the order they must run.
 */
import { Migrator, type Kysely, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';
import { initial } from './001-initial.js';
import { metricsIndexes } from './002-metrics-indexes.js';
import { webhooks } from './003-webhooks.js';
import { queueLeases } from './004-queue-leases.js';
import { githubDeliveries } from './005-github-deliveries.js';
import { entryHeadBranch } from './006-entry-head-branch.js';
import { queueManagement } from './007-queue-management.js';
import { effectOrder } from './008-effect-order.js';
import { deliveryClaims } from './009-delivery-claims.js';
import { notifications } from './010-notifications.js';
import { apiIds } from './011-api-ids.js';
import { entryTitleAuthor } from './012-entry-title-author.js';
import { repoNameCase } from './013-repo-name-case.js';
import { ciResults } from './014-ci-results.js';
import { tokenScopes } from './015-token-scopes.js';
import { auditEvents } from './016-audit-events.js';
import { forgeDeliveries } from './017-forge-deliveries.js';
import { neutralReasons } from './018-neutral-reasons.js';
import { tryBuilds } from './019-try-builds.js';

const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-metrics-indexes': metricsIndexes,
  '003-webhooks': webhooks,
  '004-queue-leases': queueLeases,
  '005-github-deliveries': githubDeliveries,
  '006-entry-head-branch': entryHeadBranch,
  '007-queue-management': queueManagement,
  '008-effect-order': effectOrder,
  '009-delivery-claims': deliveryClaims,
  '010-notifications': notifications,
  '011-api-ids': apiIds,
  '012-entry-title-author': entryTitleAuthor,
  '013-repo-name-case': repoNameCase,
  '014-ci-results': ciResults,
  '015-token-scopes': tokenScopes,
  '016-audit-events': auditEvents,
  '017-forge-deliveries': forgeDeliveries,
  '018-neutral-reasons': neutralReasons,
  '019-try-builds': tryBuilds,
};

/**
 * Brings the schema up to date; throws naming the migration that failed. Safe when several instances
 * start together: on PostgreSQL Kysely's Migrator holds an advisory lock (pg_advisory_lock) for the
 * whole run, so one instance migrates and the others then find nothing to do. On SQLite the Migrator
 * has no lock across connections; each run is one transaction (SQLite's DDL is transactional), so
 * a run that lost the race rolled back whole and is simply tried again, then finds the work done.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
  const attempts = dialectOf(db) === 'sqlite' ? 5 : 1;
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return;
    if (attempt < attempts) {
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
      continue;
    }
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    throw new Error(
      `Database migration${failed ? ` ${failed}` : ''} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
