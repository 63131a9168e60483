/**
 * The retention sweep deletes finished work records older than 30 days — effects done or failed,
 * webhook messages delivered or given up (with their attempts), queue events — and GitHub delivery
 * ids older than 14 days, audit log entries older than 30 days, and nothing else:
 * pending work, recent records, entries, runs and transitions stay. On both databases.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EARLY_CI_STATUS_RETENTION_MS,
  FORGE_DELIVERY_RETENTION_MS,
  RETENTION_MS,
  RetentionSweeper,
} from '../../src/app/cluster/retention.js';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { setWaitingRerun } from '../../src/store/ci-reruns.js';
import { holdEarlyStatus } from '../../src/store/early-ci-statuses.js';
import { storeDelivery } from '../../src/store/forge-deliveries.js';
import { testDatabases } from '../helpers/databases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
const DAY = 24 * 60 * 60 * 1000;
const databases = await testDatabases();

let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

const count = async (
  table:
    | 'effects'
    | 'webhook_messages'
    | 'webhook_attempts'
    | 'queue_events'
    | 'entries'
    | 'transitions'
    | 'test_runs'
    | 'audit_events',
) =>
  Number(
    (
      await t.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(databases)('retention sweep on $name', (database) => {
  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url(), queue: { concurrency: 1 } }));
  });
  afterEach(() => t.close());

  /** Submits a PR and runs its effects: done effects, queue events and (with a subscription) messages. */
  async function activity(n: number): Promise<void> {
    t.forge.openPr(REPO, { number: n });
    await t.service.submitPullRequest(ctx, key, { prNumber: n });
    await t.runEffects();
  }

  it('deletes what finished more than 30 days ago and keeps the rest', async () => {
    await t.service.webhooks.create({ id: ctx.orgId, name: ctx.orgName }, 'http://127.0.0.1:9/hooks', undefined, ctx);
    await activity(1);
    // An old message delivered (with its attempt) and an old one given up; the others stay pending.
    const [first, second] = await t.db.selectFrom('webhook_messages').select('message_id').orderBy('id').execute();
    await t.db
      .updateTable('webhook_messages')
      .set({ status: 'delivered', updated_at: t.clock.now() })
      .where('message_id', '=', first!.message_id)
      .execute();
    await t.db
      .updateTable('webhook_messages')
      .set({ status: 'failed', updated_at: t.clock.now() })
      .where('message_id', '=', second!.message_id)
      .execute();
    await t.db
      .insertInto('webhook_attempts')
      .values({
        message_id: first!.message_id,
        attempted_at: t.clock.now(),
        duration_ms: 5,
        status_code: 204,
        error: null,
        success: 1,
        manual: 0,
      })
      .execute();
    const old = {
      effects: await count('effects'),
      messages: await count('webhook_messages'),
      events: await count('queue_events'),
      audit: await count('audit_events'),
      pendingEffects: Number(
        (
          await t.db
            .selectFrom('effects')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', 'pending')
            .executeTakeFirstOrThrow()
        ).n,
      ),
    };
    expect(old.effects - old.pendingEffects).toBeGreaterThan(0);
    expect(old.events).toBeGreaterThan(0);

    t.clock.advance(RETENTION_MS + DAY);
    await activity(2);
    // Pending work is kept however old it is: one effect made pending since long ago.
    const [recent] = await t.db
      .selectFrom('effects')
      .select('id')
      .where('status', '=', 'done')
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    await t.db
      .updateTable('effects')
      .set({ status: 'pending', updated_at: 0, run_at: t.clock.now() + DAY })
      .where('id', '=', recent!.id)
      .execute();
    const before = {
      effects: await count('effects'),
      messages: await count('webhook_messages'),
      events: await count('queue_events'),
    };
    const kept = {
      entries: await count('entries'),
      transitions: await count('transitions'),
      runs: await count('test_runs'),
    };
    // GitHub delivery ids: one received just over 14 days ago goes, one just under stays.
    const push = (id: string) => ({ id, event: 'push', payload: '{}' });
    await storeDelivery(t.db, 'github', push('old-delivery'), t.clock.now() - FORGE_DELIVERY_RETENTION_MS - 1);
    await storeDelivery(t.db, 'github', push('recent-delivery'), t.clock.now() - FORGE_DELIVERY_RETENTION_MS + DAY);
    // A CI retry left waiting for a workflow since before the retention: its run is long over.
    const waiting = { runId: 'old-run', sha: 'c'.repeat(40), branch: 'greenline-merge/x', ciRuns: ['77'] };
    await setWaitingRerun(t.db, waiting, t.clock.now() - RETENTION_MS - 1);
    await setWaitingRerun(t.db, { ...waiting, runId: 'recent-run' }, t.clock.now() - DAY);
    // CI statuses held for a commit no run had: one received just over a day ago goes, one just under stays.
    const status = { context: 'build', state: 'success' as const };
    await holdEarlyStatus(t.db, 'repo', 'a'.repeat(40), status, t.clock.now() - EARLY_CI_STATUS_RETENTION_MS - 1);
    await holdEarlyStatus(t.db, 'repo', 'b'.repeat(40), status, t.clock.now() - EARLY_CI_STATUS_RETENTION_MS + 1);

    const pruned = await t.app.retention.sweepOnce();
    expect(pruned).toEqual({
      effects: old.effects - old.pendingEffects,
      webhookMessages: 2,
      notifyMessages: 0,
      queueEvents: old.events,
      forgeDeliveries: 1,
      earlyCiStatuses: 1,
      ciRerunsWaiting: 1,
      auditEvents: old.audit,
    });
    expect(await t.db.selectFrom('early_ci_statuses').select('sha').execute()).toEqual([{ sha: 'b'.repeat(40) }]);
    expect(await t.db.selectFrom('forge_deliveries').select('id').execute()).toEqual([{ id: 'recent-delivery' }]);
    expect(await count('effects')).toBe(before.effects - pruned.effects);
    expect(await count('webhook_messages')).toBe(before.messages - 2);
    expect(await count('webhook_attempts')).toBe(0);
    expect(await count('queue_events')).toBe(before.events - old.events);
    expect(await t.db.selectFrom('effects').select('status').where('id', '=', recent!.id).executeTakeFirst()).toEqual({
      status: 'pending',
    });
    // The queue's history and state stay.
    expect({
      entries: await count('entries'),
      transitions: await count('transitions'),
      runs: await count('test_runs'),
    }).toEqual(kept);
    expect(await t.app.retention.sweepOnce()).toEqual({
      effects: 0,
      webhookMessages: 0,
      notifyMessages: 0,
      queueEvents: 0,
      forgeDeliveries: 0,
      earlyCiStatuses: 0,
      ciRerunsWaiting: 0,
      auditEvents: 0,
    });
  });

  it("keeps records for the retention it is given (the server's retentionDays)", async () => {
    await activity(1);
    const events = await count('queue_events');
    t.clock.advance(2 * DAY);
    expect((await t.app.retention.sweepOnce()).queueEvents).toBe(0);
    const oneDay = new RetentionSweeper({ db: t.db, clock: t.clock, retentionMs: DAY });
    expect((await oneDay.sweepOnce()).queueEvents).toBe(events);
    expect(await count('queue_events')).toBe(0);
  });
});
