/**
 * Several instances starting together on one new database each run the migrations: they must run
 * once, one instance at a time. Kysely's Migrator takes care of it: on PostgreSQL it holds a session
 * advisory lock (pg_advisory_lock) around the whole run and creates its bookkeeping tables with
 * "already exists" tolerated; on SQLite the migration transaction serialises writers of the file.
 * This proves it on a fresh database with N connections (pools) migrating at once.
 */
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueueEventPayload } from '../../src/engine/types.js';
import { connect } from '../../src/store/connect.js';
import { queueShortIdOf } from '../../src/store/api-ids.js';
import { findEntry, toEntryRow, upsertEntries } from '../../src/store/entries.js';
import { insertQueueEvent, listQueueEvents } from '../../src/store/queue-events.js';
import { runOf, upsertRuns } from '../../src/store/test-runs.js';
import { insertTransitions } from '../../src/store/transitions.js';
import { apiIds } from '../../src/store/migrations/011-api-ids.js';
import { entryTitleAuthor } from '../../src/store/migrations/012-entry-title-author.js';
import { ciResults } from '../../src/store/migrations/014-ci-results.js';
import { forgeDeliveries } from '../../src/store/migrations/017-forge-deliveries.js';
import { neutralReasons } from '../../src/store/migrations/018-neutral-reasons.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { openMigrated, testDatabases } from '../helpers/databases.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { entryRecord, runRecord, seedRepo } from './records.js';

const databases = await testDatabases();
const N = 6;

describe.each(databases)('migrations on $name', (database) => {
  const dir = makeTempDirSync('greenline-migrate-');
  afterAll(async () => {
    await database.cleanup();
    await removeTempDir(dir);
  });

  it(`${N} instances migrating a fresh database at once: every migration runs exactly once, all succeed`, async () => {
    // SQLite: a file (an in-memory database exists on one connection only).
    const url = database.name === 'postgres' ? await database.url() : `sqlite:${path.join(dir, 'greenline.db')}`;
    const instances = Array.from({ length: N }, () => connect({ databaseUrl: url, dataDir: dir }));
    try {
      const results = await Promise.allSettled(instances.map((db) => migrateToLatest(db)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const db = instances[0]!;
      const ran = await db
        .selectFrom('kysely_migration' as never)
        .select(sql<string>`name`.as('name'))
        .execute();
      const names = (ran as { name: string }[]).map((r) => r.name).sort();
      expect(names).toEqual([...new Set(names)]);
      expect(names).toContain('001-initial');
      expect(names).toContain('004-queue-leases');
      // The schema is whole: the last migration's table and columns are there.
      await db.selectFrom('queue_leases').selectAll().execute();
      await db.selectFrom('effects').select('claimed_by').execute();
      await db.selectFrom('queues').select(['managed_by', 'drift_since']).execute();
      // And a late starter finds nothing to do.
      await migrateToLatest(db);
    } finally {
      await Promise.all(instances.map((db) => db.destroy()));
    }
  });

  it('011 gives the queues there already the short ids the store derives', async () => {
    const db = await openMigrated(database);
    try {
      await seedRepo(db, [
        ['q1', 'main'],
        ['q2', 'release'],
      ]);
      await apiIds.down!(db as never);
      await apiIds.up(db as never);
      const queues = await db.selectFrom('queues').select('id').orderBy('id').execute();
      expect(queues.length).toBeGreaterThan(0);
      expect(
        await db.selectFrom('queue_short_ids').select(['queue_id', 'short_id']).orderBy('queue_id').execute(),
      ).toEqual(queues.map(({ id }) => ({ queue_id: id, short_id: queueShortIdOf(id) })));
    } finally {
      await db.destroy();
    }
  });

  it('012 copies the title and author of existing entries out of their JSON', async () => {
    const db = await openMigrated(database);
    try {
      await entryTitleAuthor.down!(db as never);
      await seedRepo(db);
      const {
        title: _title,
        author: _author,
        ...row
      } = toEntryRow('q1', entryRecord(7, { title: 'Ünïcode “title” 100%', author: 'Alice' }));
      await db
        .insertInto('entries' as never)
        .values(row as never)
        .execute();
      await entryTitleAuthor.up(db as never);
      expect(await db.selectFrom('entries').select(['title', 'author']).execute()).toEqual([
        { title: 'Ünïcode “title” 100%', author: 'Alice' },
      ]);
    } finally {
      await db.destroy();
    }
  });

  it('014 counts the GitHub deliveries received before it as processed, 017 as the github forge’s, and both undo cleanly', async () => {
    const db = await openMigrated(database);
    try {
      await forgeDeliveries.down!(db as never);
      await ciResults.down!(db as never);
      await db
        .insertInto('github_deliveries' as never)
        .values({ id: 'd1', event: 'push', received_at: 1 } as never)
        .execute();
      await ciResults.up(db as never);
      await forgeDeliveries.up(db as never);
      expect(await db.selectFrom('forge_deliveries').selectAll().execute()).toEqual([
        {
          id: 'd1',
          forge: 'github',
          event: 'push',
          received_at: 1,
          payload: null,
          status: 'done',
          attempts: 0,
          next_attempt_at: null,
          result: null,
          last_error: null,
        },
      ]);
      await db.selectFrom('early_ci_statuses').selectAll().execute();
      await db.selectFrom('ci_reruns_waiting').selectAll().execute();
    } finally {
      await db.destroy();
    }
  });

  it('018 rewrites the refused merges recorded in Trunk’s GitHub names to the neutral ones, and back on undo', async () => {
    const db = await openMigrated(database);
    try {
      await seedRepo(db);
      // Records as the versions before 018 wrote them.
      const old = 'GITHUB_API_MERGE_PR_FAILED' as 'MERGE_REFUSED';
      const oldDirect = 'GITHUB_API_DIRECT_MERGE_PR_FAILED' as 'DIRECT_MERGE_REFUSED';
      const detail = 'GitHub said "GITHUB_API_MERGE_PR_FAILED" in its own words';
      await upsertEntries(db, 'q1', [
        entryRecord(7, {
          state: 'FAILED',
          lastReason: old,
          timeline: [{ at: 2000, from: 'TESTS_PASSED', to: 'FAILED', reason: old, detail }],
        }),
        entryRecord(8, { state: 'FAILED', lastReason: oldDirect }),
      ]);
      await upsertRuns(db, 'q1', [runRecord('run-1', { status: 'failed', failureReason: old, failureDetail: detail })]);
      await db
        .transaction()
        .execute((trx) =>
          insertTransitions(trx, [
            { queue_id: 'q1', pr_number: 7, from_state: 'TESTS_PASSED', to_state: 'FAILED', reason: old, at: 2000 },
          ]),
        );
      const event: QueueEventPayload = {
        type: 'pull_request.failed',
        at: 2000,
        prNumbers: [7],
        prNumbersInBatch: [7],
        testBranch: null,
        testBranchSha: null,
        batched: false,
        isBisection: false,
        runId: 'run-1',
        reason: old,
      };
      await insertQueueEvent(db, 'q1', 'failed-7', event, 2000);
      const reasons = async () => ({
        entry: await findEntry(db, 'q1', 7),
        direct: (await findEntry(db, 'q1', 8))?.lastReason,
        run: runOf(await db.selectFrom('test_runs').select('data').executeTakeFirstOrThrow()),
        transitions: await db.selectFrom('transitions').select('reason').execute(),
        events: await listQueueEvents(db, 'q1'),
      });

      await neutralReasons.up(db as never);
      const after = await reasons();
      expect(after.entry).toMatchObject({
        lastReason: 'MERGE_REFUSED',
        timeline: [{ reason: 'MERGE_REFUSED', detail }],
      });
      expect(after.direct).toBe('DIRECT_MERGE_REFUSED');
      expect(after.run).toMatchObject({ failureReason: 'MERGE_REFUSED', failureDetail: detail });
      expect(after.transitions).toEqual([{ reason: 'MERGE_REFUSED' }]);
      expect(after.events).toEqual([{ ...event, reason: 'MERGE_REFUSED' }]);

      await neutralReasons.down!(db as never);
      const undone = await reasons();
      expect(undone.entry).toMatchObject({ lastReason: old, timeline: [{ reason: old, detail }] });
      expect(undone.direct).toBe(oldDirect);
      expect(undone.transitions).toEqual([{ reason: old }]);
      expect(undone.events).toEqual([event]);
    } finally {
      await db.destroy();
    }
  });
});
