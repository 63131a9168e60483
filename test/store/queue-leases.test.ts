/**
 * Queue leases, the effect claims tied to them and the test runs' CI instance, on SQLite and (when
 * reachable, always in CI) PostgreSQL: acquire, renew, expire, take over, release; and on PostgreSQL
 * several connections racing for the same queues.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Effect, TestRun } from '../../src/engine/types.js';
import type { Db } from '../../src/store/connect.js';
import { connect } from '../../src/store/connect.js';
import {
  completeEffect,
  insertEffects,
  leaseEffects,
  listEffects,
  nextEffectRunAt,
  reissueEffect,
  releaseForeignClaims,
  selectDueEffectIds,
  selectQueuesWithDueEffects,
} from '../../src/store/effects.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import {
  acquireQueueLeases,
  holdsQueueLease,
  listQueueIds,
  listQueueLeases,
  releaseQueueLeases,
} from '../../src/store/queue-leases.js';
import { findRunRow, listRunsWithForeignCi, setRunRequiredStatuses, upsertRuns } from '../../src/store/test-runs.js';
import { openMigrated, testDatabases } from '../helpers/databases.js';
import { runRecord, seedRepo } from './records.js';

const databases = await testDatabases();
const TTL = 1_000;

const wakeup = (key: string): Effect => ({ kind: 'scheduleWakeup', key, at: 0 });

const run = (id: string, over: Partial<TestRun> = {}): TestRun => runRecord(id, { testSha: 'test-sha', ...over });

describe.each(databases)('queue leases on $name', (database) => {
  let db: Db;
  let url: string;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    url = await database.url();
    db = connect({ databaseUrl: url, dataDir: '' });
    await migrateToLatest(db);
    await seedRepo(db, [
      ['q1', 'main'],
      ['q2', 'release'],
    ]);
  });
  afterEach(async () => {
    await db.destroy();
  });

  /** Wakeup effects in q1's outbox, each due at its time. */
  const insertWakeups = (due: Record<string, number>) =>
    db.transaction().execute((trx) =>
      insertEffects(
        trx,
        'q1',
        Object.entries(due).map(([key, runAt]) => ({ effect: wakeup(key), runAt })),
        1,
      ),
    );

  it('acquire: free queues go to the first asker; a held one to nobody else', async () => {
    expect(await listQueueIds(db)).toEqual(['q1', 'q2']);
    expect((await acquireQueueLeases(db, ['q1', 'q2'], 'A', 100, 100 + TTL)).sort()).toEqual(['q1', 'q2']);
    expect(await acquireQueueLeases(db, ['q1', 'q2'], 'B', 200, 200 + TTL)).toEqual([]);
    expect(await listQueueLeases(db)).toEqual([
      { queue_id: 'q1', holder: 'A', expires_at: 1100, acquired_at: 100 },
      { queue_id: 'q2', holder: 'A', expires_at: 1100, acquired_at: 100 },
    ]);
    expect(await holdsQueueLease(db, 'q1', 'A', 500)).toBe(true);
    expect(await holdsQueueLease(db, 'q1', 'B', 500)).toBe(false);
    expect(await holdsQueueLease(db, 'q1', 'A', 1100)).toBe(false);
    expect(await acquireQueueLeases(db, [], 'A', 100, 200)).toEqual([]);
  });

  it('renew: the holder pushes its expiry forward and keeps its acquisition time', async () => {
    await acquireQueueLeases(db, ['q1'], 'A', 100, 100 + TTL);
    expect(await acquireQueueLeases(db, ['q1'], 'A', 600, 600 + TTL)).toEqual(['q1']);
    expect(await listQueueLeases(db)).toEqual([{ queue_id: 'q1', holder: 'A', expires_at: 1600, acquired_at: 100 }]);
    // Renewing a lease that lapsed but was not taken is still the holder's.
    expect(await acquireQueueLeases(db, ['q1'], 'A', 5000, 5000 + TTL)).toEqual(['q1']);
    expect((await listQueueLeases(db))[0]).toMatchObject({ holder: 'A', expires_at: 6000, acquired_at: 100 });
  });

  it('expire and take over: once expired another instance takes it; the old holder cannot renew', async () => {
    await acquireQueueLeases(db, ['q1', 'q2'], 'A', 100, 100 + TTL);
    expect(await acquireQueueLeases(db, ['q1', 'q2'], 'B', 1099, 1099 + TTL)).toEqual([]);
    expect((await acquireQueueLeases(db, ['q1', 'q2'], 'B', 1100, 1100 + TTL)).sort()).toEqual(['q1', 'q2']);
    expect(await listQueueLeases(db)).toEqual([
      { queue_id: 'q1', holder: 'B', expires_at: 2100, acquired_at: 1100 },
      { queue_id: 'q2', holder: 'B', expires_at: 2100, acquired_at: 1100 },
    ]);
    expect(await acquireQueueLeases(db, ['q1', 'q2'], 'A', 1200, 1200 + TTL)).toEqual([]);
  });

  it("release: given-up leases are free at once; only the holder's own are released", async () => {
    await acquireQueueLeases(db, ['q1'], 'A', 100, 100 + TTL);
    await acquireQueueLeases(db, ['q2'], 'B', 100, 100 + TTL);
    await releaseQueueLeases(db, 'A', []);
    await releaseQueueLeases(db, 'B', ['q1']);
    expect((await listQueueLeases(db)).map((l) => l.holder)).toEqual(['A', 'B']);
    await releaseQueueLeases(db, 'A');
    expect(await acquireQueueLeases(db, ['q1', 'q2'], 'C', 200, 200 + TTL)).toEqual(['q1']);
  });

  it('a deleted queue takes its lease with it', async () => {
    await acquireQueueLeases(db, ['q1'], 'A', 100, 100 + TTL);
    await db.deleteFrom('queues').where('id', '=', 'q1').execute();
    expect(await listQueueLeases(db)).toEqual([]);
  });

  it('effects are claimed only by the lease holder, with its id; a takeover hands foreign claims back', async () => {
    await insertWakeups({ w1: 100, w2: 100, w3: 5000 });
    const due = (holder: string, now: number) =>
      db.transaction().execute((trx) => selectDueEffectIds(trx, now, 10, 'q1', holder));
    expect(await due('A', 150)).toEqual([]); // nobody holds q1
    await acquireQueueLeases(db, ['q1'], 'A', 100, 100 + TTL);
    expect(await due('B', 150)).toHaveLength(0);
    const ids = await due('A', 150);
    expect(ids).toHaveLength(2);
    const claimed = await db.transaction().execute((trx) => leaseEffects(trx, ids, 150 + 600_000, 'A'));
    expect(claimed.map((e) => [e.key, e.claimed_by])).toEqual([
      ['w1', 'A'],
      ['w2', 'A'],
    ]);
    await completeEffect(db, claimed[1]!.id, 160);
    expect((await listEffects(db, 'q1')).map((e) => [e.key, e.status, e.claimed_by])).toEqual([
      ['w1', 'pending', 'A'],
      ['w2', 'done', null],
      ['w3', 'pending', null],
    ]);
    expect(await selectQueuesWithDueEffects(db, 200, [], ['q2'])).toEqual([]);
    expect(await selectQueuesWithDueEffects(db, 200, [], [])).toEqual([]);
    expect(await nextEffectRunAt(db, ['q1'])).toBe(5000);
    expect(await nextEffectRunAt(db, ['q2'])).toBeNull();
    expect(await nextEffectRunAt(db, [])).toBeNull();

    // A dies; B takes q1 over once the lease expires and gets A's claim back at once, not in 10 minutes.
    await acquireQueueLeases(db, ['q1'], 'B', 1100, 1100 + TTL);
    expect(await releaseForeignClaims(db, 'q1', 'A', 1100)).toBe(0);
    expect(await releaseForeignClaims(db, 'q1', 'B', 1100)).toBe(1);
    expect((await listEffects(db, 'q1')).map((e) => [e.key, e.run_at, e.claimed_by])).toEqual([
      ['w1', 1100, null],
      ['w2', 150 + 600_000, null],
      ['w3', 5000, null],
    ]);
    expect(await due('B', 1100)).toEqual([claimed[0]!.id]);
    expect(await due('A', 1100)).toEqual([]);
  });

  it('a finished effect is issued again once; a pending one is left alone', async () => {
    await insertWakeups({ w1: 100, w2: 100 });
    const [w1] = await listEffects(db, 'q1');
    await completeEffect(db, w1!.id, 200);
    expect(await reissueEffect(db, 'q1', 'w1', 300)).toBe(true);
    expect(await reissueEffect(db, 'q1', 'w2', 300)).toBe(false);
    expect(await reissueEffect(db, 'q1', 'nope', 300)).toBe(false);
    expect((await listEffects(db, 'q1')).map((e) => [e.key, e.status, e.run_at, e.attempts])).toEqual([
      ['w1', 'pending', 300, 0],
      ['w2', 'pending', 100, 0],
    ]);
  });

  it('runs in progress whose built-in CI ran in another instance are found for a takeover', async () => {
    await upsertRuns(db, 'q1', [run('r1'), run('r2'), run('r3'), run('r4', { status: 'succeeded' }), run('r5')]);
    await setRunRequiredStatuses(db, 'r1', ['greenline/ci'], 'ci_command', 'A');
    await setRunRequiredStatuses(db, 'r2', ['greenline/ci'], 'ci_command', 'B');
    await setRunRequiredStatuses(db, 'r3', ['ci/external'], 'queue', null);
    await setRunRequiredStatuses(db, 'r4', ['greenline/ci'], 'ci_command', 'A');
    expect((await findRunRow(db, 'r1'))?.ci_instance).toBe('A');
    expect((await listRunsWithForeignCi(db, 'q1', 'B')).map((r) => r.id)).toEqual(['r1']);
    expect((await listRunsWithForeignCi(db, 'q1', 'A')).map((r) => r.id)).toEqual(['r2']);
    expect(await listRunsWithForeignCi(db, 'q2', 'C')).toEqual([]);
  });
});

describe.each(databases.filter((d) => d.name === 'postgres'))(
  'queue leases on $name, several connections',
  (database) => {
    afterAll(() => database.cleanup());

    it('several instances racing for the same queues: each queue gets exactly one holder', async () => {
      const url = await database.url();
      const db = await openMigrated({ ...database, url: async () => url });
      const queues = Array.from({ length: 8 }, (_, i) => `q${i}`);
      await seedRepo(
        db,
        queues.map((id) => [id, id]),
      );
      const others = Array.from({ length: 6 }, () => connect({ databaseUrl: url, dataDir: '' }));
      try {
        for (let round = 0; round < 5; round++) {
          const now = 10_000 * (round + 1); // every earlier lease has expired
          const won = await Promise.all(
            others.map((o, i) => acquireQueueLeases(o, queues, `R${round}I${i}`, now, now + TTL)),
          );
          expect(won.flat().sort()).toEqual(queues);
          for (const lease of await listQueueLeases(db)) {
            expect(won[Number(lease.holder.split('I')[1])]).toContain(lease.queue_id);
            expect(lease).toMatchObject({ acquired_at: now, expires_at: now + TTL });
          }
        }
      } finally {
        await Promise.all(others.map((o) => o.destroy()));
        await db.destroy();
      }
    });
  },
);
