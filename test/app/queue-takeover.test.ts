/**
 * Two instances of the application on one store (SQLite and, when reachable, PostgreSQL), fake forge
 * and fake CI, a manual clock: only the lease holder drives the queue; when it stops renewing, the
 * other takes the queue over after one lease length and resumes the dead one's unfinished work — its
 * claimed effects at once (not after the effects' own 10-minute lease) and its lost CI runs.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedCi } from '../doubles/scripted-ci.js';
import { createApp, type App } from '../../src/app/create-app.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { leaseEffects, listEffects, selectDueEffectIds } from '../../src/store/effects.js';
import { listQueueLeases } from '../../src/store/queue-leases.js';
import { findRunRow } from '../../src/store/test-runs.js';
import { testDatabases } from '../helpers/databases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const databases = await testDatabases();
const REPO = 'github.com/acme/web';
const TTL = 15_000;

describe.each(databases)('queue takeover on $name', (database) => {
  let t: TestService;
  let ctx: AuthContext;
  let key: QueueKey;
  let b: App;
  let ciB: ScriptedCi;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url() }));
    ciB = new ScriptedCi();
    b = createApp({
      db: t.db,
      clock: t.clock,
      forges: { git: t.forge, github: t.forge },
      pollIntervalMs: 60_000,
      leaseTtlMs: TTL,
      instanceId: 'instance-b',
      createCi: (onStatus) => {
        ciB.onStatus = onStatus;
        return ciB;
      },
    });
  });
  afterEach(async () => {
    await b.stop();
    await t.close();
  });

  const queueId = async () => (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
  const entry = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry;

  it('only the holder runs effects; after it dies the other takes over within one lease length and restarts its CI', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects(); // instance A (the test service) takes the lease and starts CI
    const runId = (await entry(1)).runId!;
    expect(t.ci.startedRunIds()).toEqual([runId]);
    const a = t.app.leases.instanceId;
    expect((await listQueueLeases(t.db)).map((l) => l.holder)).toEqual([a]);
    expect((await findRunRow(t.db, runId))?.ci_instance).toBe(a);

    // B serves requests too, but drives nothing while A's lease lives.
    t.forge.openPr(REPO, { number: 2 });
    await b.service.submitPullRequest(ctx, key, { prNumber: 2 });
    await b.runner.drain();
    expect(ciB.started).toEqual([]);
    expect((await listEffects(t.db, await queueId())).filter((e) => e.status === 'pending').length).toBeGreaterThan(0);

    // A dies (stops renewing, its CI gone). Just before its lease ends B still waits; then takes over.
    t.clock.advance(TTL - 1);
    await b.runner.drain();
    expect(ciB.started).toEqual([]);
    t.clock.advance(1);
    await b.runner.drain();
    expect((await listQueueLeases(t.db)).map((l) => l.holder)).toEqual(['instance-b']);
    expect(ciB.startedRunIds()).toContain(runId); // the run A's CI was running, started again here
    expect((await findRunRow(t.db, runId))?.ci_instance).toBe('instance-b');

    const passed = new Set<string>();
    for (let round = 0; round < 4 && passed.size < ciB.started.length + 1; round++) {
      for (const id of ciB.startedRunIds().filter((r) => !passed.has(r))) {
        passed.add(id);
        await ciB.pass(id);
      }
      await b.runner.drain();
    }
    expect((await entry(1)).state).toBe('MERGED');
    expect((await entry(2)).state).toBe('MERGED');
    expect(t.forge.prsOnBranch(REPO, 'main')).toEqual([1, 2]);
  });

  it('an effect the dead holder claimed and never finished is executed by the new holder at once', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.app.leases.refresh();
    const q = await queueId();
    const now = t.clock.now();
    // A claims the test branch effect (10-minute effect lease) and dies before doing it.
    const claimed = await t.db
      .transaction()
      .execute(async (trx) =>
        leaseEffects(
          trx,
          await selectDueEffectIds(trx, now, 10, q, t.app.leases.instanceId),
          now + 600_000,
          t.app.leases.instanceId,
        ),
      );
    expect(claimed.map((e) => e.kind)).toContain('createTestBranch');

    t.clock.advance(TTL);
    await b.runner.drain();
    expect((await entry(1)).state).toBe('TESTING');
    expect(ciB.started.map((s) => s.prNumbers)).toEqual([[1]]);
    expect(t.clock.now() - now).toBeLessThan(600_000);
  });

  it("the new holder deletes test branches no run needs (a finished run's, an unknown run's) and keeps those in use", async () => {
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr(REPO, { number: 2 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const passed = (await entry(1)).runId!;
    await t.ci.pass(passed);
    await t.runEffects();
    expect((await entry(1)).state).toBe('MERGED');
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    await t.runEffects();
    const testing = (await entry(2)).runId!;
    expect((await entry(2)).state).toBe('TESTING');
    const branches = t.forge.state(REPO).branches;
    const branchOf = async (runId: string) => JSON.parse((await findRunRow(t.db, runId))!.data).testBranch as string;
    const inUse = await branchOf(testing);
    expect(branches.has(inUse)).toBe(true);
    // What a dead instance leaves: the finished run's branch pushed again after it was deleted, the
    // branch of a run the store does not know; a branch of another format is none of greenline's.
    const leftOver = await branchOf(passed);
    expect(branches.has(leftOver)).toBe(false);
    branches.set(leftOver, branches.get('main')!);
    branches.set('greenline-merge/pr-7/no-such-run', branches.get('main')!);
    branches.set('greenline-merge/notes', branches.get('main')!);

    t.clock.advance(TTL);
    await b.runner.drain();
    expect((await listQueueLeases(t.db)).map((l) => l.holder)).toEqual(['instance-b']);
    expect([...branches.keys()].filter((n) => n.startsWith('greenline-merge/')).sort()).toEqual(
      ['greenline-merge/notes', inUse].sort(),
    );
  });

  it('a stopping instance gives its queues up: the other takes them at once', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    await t.app.stop();
    await b.runner.drain();
    expect((await listQueueLeases(t.db)).map((l) => l.holder)).toEqual(['instance-b']);
    expect(ciB.startedRunIds()).toEqual([(await entry(1)).runId]);
  });
});
