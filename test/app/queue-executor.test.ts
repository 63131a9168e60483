/** The per-queue executor: decisions and their effects in one transaction (outbox pattern), serial per queue, concurrent requests grouped. */
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { ServiceError } from '../../src/lib/errors.js';
import { listEffects } from '../../src/store/effects.js';
import { testDatabases } from '../helpers/databases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;
let queueId: string;

const databases = await testDatabases();

const count = async (table: 'entries' | 'transitions' | 'effects' | 'test_runs') =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const version = async () =>
  (await t.db.selectFrom('queues').select('version').where('id', '=', queueId).executeTakeFirstOrThrow()).version;

describe.each(databases)('queue executor on $name', (database) => {
  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url() }));
    queueId = (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
  });
  afterEach(() => t.close());

  it('writes entry, run, transitions, queue row and effects together', async () => {
    const v0 = await version();
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    expect(await version()).toBe(v0 + 1);
    expect(await count('entries')).toBe(1);
    expect(await count('transitions')).toBeGreaterThanOrEqual(2);
    expect(await count('test_runs')).toBe(1);
    expect((await listEffects(t.db, queueId)).map((e) => e.kind)).toContain('createTestBranch');
  });

  it('a failing write rolls back everything: no entry, no transition, no run, no effect, same version', async () => {
    t.forge.openPr(REPO, { number: 1 });
    const before = {
      entries: await count('entries'),
      transitions: await count('transitions'),
      effects: await count('effects'),
      runs: await count('test_runs'),
      version: await version(),
    };
    // The last write of the transaction (the queue row) fails, as a crash before the commit would.
    if (database.name === 'postgres') {
      await sql`CREATE FUNCTION fail_queue_update() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$ LANGUAGE plpgsql`.execute(
        t.db,
      );
      await sql`CREATE TRIGGER fail_queue_update BEFORE UPDATE ON queues FOR EACH ROW EXECUTE FUNCTION fail_queue_update()`.execute(
        t.db,
      );
    } else {
      await sql`CREATE TRIGGER fail_queue_update BEFORE UPDATE ON queues BEGIN SELECT RAISE(ABORT, 'disk full'); END`.execute(
        t.db,
      );
    }
    await expect(t.service.submitPullRequest(ctx, key, { prNumber: 1 })).rejects.toThrow(/disk full/);
    await sql
      .raw(database.name === 'postgres' ? 'DROP TRIGGER fail_queue_update ON queues' : 'DROP TRIGGER fail_queue_update')
      .execute(t.db);
    expect({
      entries: await count('entries'),
      transitions: await count('transitions'),
      effects: await count('effects'),
      runs: await count('test_runs'),
      version: await version(),
    }).toEqual(before);

    // Nothing stale was cached: the same submission now goes through.
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    expect(await count('entries')).toBe(1);
  });

  it('decides concurrent submissions together and commits them in fewer transactions (group commit)', async () => {
    const prs = Array.from({ length: 12 }, (_, i) => i + 1);
    for (const n of prs) t.forge.openPr(REPO, { number: n });
    const v0 = await version();
    await Promise.all(prs.map((n) => t.service.submitPullRequest(ctx, key, { prNumber: n })));
    expect(await count('entries')).toBe(12);
    // Each commit bumps the version once: twelve requests took fewer commits than that.
    expect((await version()) - v0).toBeGreaterThanOrEqual(1);
    expect((await version()) - v0).toBeLessThan(12);
    const { snapshot } = await t.service.getQueue(ctx, key);
    expect(snapshot.entries.map((e) => e.prNumber).sort((a, b) => a - b)).toEqual(prs);
    // Every PR's own history is recorded, as if it had been submitted alone.
    const submitted = await t.db
      .selectFrom('transitions')
      .select('pr_number')
      .where('to_state', '=', 'NOT_READY')
      .execute();
    expect(submitted.map((r) => r.pr_number).sort((a, b) => a - b)).toEqual(prs);
  });

  it('a rejected request in a group gets its own error; the others of the group are committed', async () => {
    for (const n of [1, 2, 3]) t.forge.openPr(REPO, { number: n });
    await Promise.all([1, 2, 3].map((n) => t.service.submitPullRequest(ctx, key, { prNumber: n })));
    const results = await Promise.allSettled([
      t.service.cancelPullRequest(ctx, key, 1),
      t.service.cancelPullRequest(ctx, key, 42),
      t.service.cancelPullRequest(ctx, key, 3),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(((results[1] as PromiseRejectedResult).reason as ServiceError).code).toBe('PR_NOT_IN_QUEUE');
    const { snapshot } = await t.service.getQueue(ctx, key);
    expect(snapshot.entries.map((e) => e.prNumber)).toEqual([2]);
  });

  it('keeps the order in which events reach it, across groups of different kinds', async () => {
    const { state: _open, ...pr } = t.forge.openPr(REPO, { number: 1 });
    const submit = {
      kind: 'submit' as const,
      at: t.clock.now(),
      entryId: 'entry-1',
      pr,
      reason: 'API_REQUESTED' as const,
    };
    // Submit, cancel, submit again, all waiting for the same turn: applied in that order, so the PR ends up queued again.
    const results = await Promise.all([
      t.app.executor.apply(queueId, submit),
      t.app.executor.apply(queueId, { kind: 'cancel', at: t.clock.now(), prNumber: 1, reason: 'API_REQUESTED' }),
      t.app.executor.apply(queueId, submit),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    const { snapshot } = await t.service.getQueue(ctx, key);
    expect(snapshot.entries.map((e) => [e.prNumber, e.trip])).toEqual([[1, 2]]);
  });

  it('sees writes made by another executor over the same database (the row version is checked)', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.service.getQueue(ctx, key);
    const { createApp } = await import('../../src/app/create-app.js');
    const other = createApp({
      db: t.db,
      clock: t.clock,
      forges: { git: t.forge },
      pollIntervalMs: 60_000,
      createCi: () => t.ci,
    });
    await other.service.cancelPullRequest(ctx, key, 1);
    expect((await t.service.getQueue(ctx, key)).snapshot.entries).toEqual([]);
  });

  it('writes nothing for a decision that changes nothing', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1, priority: 'high' });
    const before = {
      transitions: await count('transitions'),
      effects: await count('effects'),
      version: await version(),
    };
    // The same submission again: the PR is already in the queue with these settings.
    await t.service.submitPullRequest(ctx, key, { prNumber: 1, priority: 'high' });
    expect({
      transitions: await count('transitions'),
      effects: await count('effects'),
      version: await version(),
    }).toEqual(before);
    await t.service.submitPullRequest(ctx, key, { prNumber: 1, priority: 'low' });
    expect(await version()).toBe(before.version + 1);
  });

  it('turns engine rejections into service errors of the same cause and writes nothing', async () => {
    const v0 = await version();
    const err = await t.service.cancelPullRequest(ctx, key, 5).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('PR_NOT_IN_QUEUE');
    expect(await version()).toBe(v0);
  });
});
