/**
 * The application on PostgreSQL: the same flow as on SQLite, effect notifications between instances,
 * and two instances deciding for one queue at once (the queue row lock keeps them from interleaving).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app/create-app.js';
import { listenForEffects } from '../../src/app/cluster/effect-notifications.js';
import { notifyEffects } from '../../src/store/effects.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { testDatabases } from '../helpers/databases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';
import { waitUntil } from '../helpers/wait-until.js';

const pg = (await testDatabases()).filter((d) => d.name === 'postgres');
const REPO = 'github.com/acme/web';

describe.each(pg)('application on $name', (database) => {
  let t: TestService;
  let ctx: AuthContext;
  let key: QueueKey;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url(), queue: { concurrency: 2 } }));
  });
  afterEach(() => t.close());

  it('submits, tests and merges', async () => {
    for (const n of [1, 2]) {
      t.forge.openPr(REPO, { number: n });
      await t.service.submitPullRequest(ctx, key, { prNumber: n });
    }
    await t.runEffects();
    for (const n of [1, 2])
      await t.ci.pass((await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry.runId!);
    await t.runEffects();
    expect(t.forge.prsOnBranch(REPO, 'main')).toEqual([1, 2]);
    const page = await t.service.listPullRequests(ctx, key, { take: 10, state: 'MERGED' });
    expect(page.items.map((e) => e.prNumber).sort()).toEqual([1, 2]);
  });

  it('every instance hears of effects committed for a queue, at commit and only then', async () => {
    const heard: string[] = [];
    const listening = listenForEffects(t.db, (queueId) => heard.push(queueId));
    try {
      const queueId = (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
      // LISTEN is issued on a connection of its own: wait until it is in place.
      await waitUntil(
        'the LISTEN connection to hear a probe',
        10_000,
        async () => {
          await t.db.transaction().execute((trx) => notifyEffects(trx, 'probe'));
          return heard.includes('probe') || undefined;
        },
        undefined,
        50,
      );
      await t.db
        .transaction()
        .execute(async (trx) => {
          await notifyEffects(trx, queueId);
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      t.forge.openPr(REPO, { number: 1 });
      await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
      await waitUntil(
        'the notification of the submission',
        10_000,
        () => heard.includes(queueId) || undefined,
        undefined,
        50,
      );
      // Once, for the submission: nothing for the transaction that rolled back.
      expect(heard.filter((q) => q !== 'probe')).toEqual([queueId]);
    } finally {
      await listening.stop();
    }
  });

  it('two instances applying events to one queue at once lose nothing', async () => {
    const other = createApp({
      db: t.db,
      clock: t.clock,
      forges: { git: t.forge },
      pollIntervalMs: 60_000,
      createCi: () => t.ci,
    });
    const prs = Array.from({ length: 16 }, (_, i) => i + 1);
    for (const n of prs) t.forge.openPr(REPO, { number: n });
    await Promise.all(prs.map((n) => (n % 2 ? t.service : other.service).submitPullRequest(ctx, key, { prNumber: n })));
    const { snapshot } = await t.service.getQueue(ctx, key);
    expect(snapshot.entries.map((e) => e.prNumber).sort((a, b) => a - b)).toEqual(prs);
    // Each submission is one write: the versions line up with the events applied.
    const transitions = await t.db
      .selectFrom('transitions')
      .select('pr_number')
      .where('to_state', '=', 'NOT_READY')
      .execute();
    expect(transitions.map((r) => Number(r.pr_number)).sort((a, b) => a - b)).toEqual(prs);
    expect(snapshot.runs.length).toBe(2);
  });
});
