/**
 * The delivery worker over the store, on SQLite and PostgreSQL, with a recording send in place of
 * HTTP: each worker reads and writes only the tables of its own outbox (a due webhook message is never
 * sent by the notifications' worker, nor the other way round, and a takeover's release touches one
 * outbox at a time); a failing message is tried again on the retry schedule and given up after the
 * eighth attempt; a subscription failing for its outbox's time is disabled, a success ends its run.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listAttempts } from '../../src/delivery/attempts.js';
import type { Outcome } from '../../src/delivery/http-post.js';
import {
  findMessage,
  leaseMessages,
  listMessages,
  queueMessages,
  releaseDeliveryClaims,
  selectDueMessageIds,
} from '../../src/delivery/messages.js';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/delivery/retry-schedule.js';
import type { OutboxTables } from '../../src/delivery/tables.js';
import { type DeliverySubscription, DeliveryWorker, type Outbox } from '../../src/delivery/worker.js';
import { ManualClock } from '../../src/lib/clock.js';
import { connect, type Db } from '../../src/store/connect.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { insertOrg } from '../../src/store/orgs.js';
import { testDatabases } from '../helpers/databases.js';

const HOOKS: OutboxTables = {
  subscriptions: 'webhook_subscriptions',
  messages: 'webhook_messages',
  attempts: 'webhook_attempts',
};
const CHATS: OutboxTables = {
  subscriptions: 'notify_subscriptions',
  messages: 'notify_messages',
  attempts: 'notify_attempts',
};
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const databases = await testDatabases();

describe.each(databases)('delivery outboxes on $name', (database) => {
  let db: Db;
  let clock: ManualClock;
  /** What each outbox's send was asked to send: `<outbox> <message id>`. */
  let sent: string[];
  /** How the next sends go. */
  let answer: Outcome;
  let events = 0;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    db = connect({ databaseUrl: await database.url(), dataDir: '' });
    await migrateToLatest(db);
    clock = new ManualClock();
    sent = [];
    answer = { success: true, statusCode: 204, error: null, durationMs: 1 };
    await insertOrg(db, { id: 'o1', name: 'acme', created_at: 1 });
    const subscription = { org_id: 'o1', enabled: 1, disabled_reason: null, failing_since: null, created_at: 1 };
    await db
      .insertInto('webhook_subscriptions')
      .values({
        ...subscription,
        id: 'hook',
        url: 'https://hooks.example/a',
        secret: 'whsec_x',
        events: null,
        updated_at: 1,
      })
      .execute();
    await db
      .insertInto('notify_subscriptions')
      .values({
        ...subscription,
        id: 'chat',
        kind: 'chat',
        url: 'https://chat.example/b',
        repo_id: null,
        target_branch: null,
        events: '[]',
        updated_at: 1,
      })
      .execute();
  });
  afterEach(() => db.destroy());

  /** An outbox over `tables` whose send records the message and answers `answer`. */
  function outbox(name: string, tables: OutboxTables, disableAfterMs = 30 * DAY): Outbox<DeliverySubscription> {
    return {
      tables,
      what: name,
      disableAfterMs,
      findSubscription: (d, id) =>
        d
          .selectFrom(tables.subscriptions)
          .select(['id', 'url', 'enabled', 'failing_since'])
          .where('id', '=', id)
          .executeTakeFirst(),
      send: async (_subscription, message) => {
        sent.push(`${name} ${message.message_id}`);
        return answer;
      },
    };
  }

  const worker = (o: Outbox<DeliverySubscription>) => new DeliveryWorker(o, { db, clock });

  /** Queues a message for the subscription, due now; returns its id. */
  async function queue(tables: OutboxTables, subscriptionId: string): Promise<string> {
    events += 1;
    const message = { subscription_id: subscriptionId, queue_id: 'q1', event_id: events, event_type: 'merged' };
    await queueMessages(db, tables, [{ ...message, order_key: 'q1', body: '{}' }], clock.now());
    return (await listMessages(db, tables, subscriptionId, 1))[0]!.message_id;
  }

  it("sends only its own outbox's messages: a due webhook is never sent by the notifications' worker, nor the other way round", async () => {
    const w1 = await queue(HOOKS, 'hook');
    const n1 = await queue(CHATS, 'chat');

    await worker(outbox('chats', CHATS)).drain();
    expect(sent).toEqual([`chats ${n1}`]);
    expect(await findMessage(db, HOOKS, w1)).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await listAttempts(db, HOOKS, [w1])).toEqual([]);
    expect(await findMessage(db, CHATS, n1)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await listAttempts(db, CHATS, [n1])).toEqual([expect.objectContaining({ success: 1 })]);

    await worker(outbox('hooks', HOOKS)).drain();
    expect(sent).toEqual([`chats ${n1}`, `hooks ${w1}`]);
    expect(await findMessage(db, HOOKS, w1)).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it("hands back a dead instance's claims one outbox at a time", async () => {
    const w1 = await queue(HOOKS, 'hook');
    const n1 = await queue(CHATS, 'chat');
    const now = clock.now();
    for (const tables of [HOOKS, CHATS])
      await leaseMessages(db, tables, await selectDueMessageIds(db, tables, now, 10), now, now + HOUR, 'dead');

    expect(await releaseDeliveryClaims(db, CHATS, ['dead'], now)).toBe(1);
    expect(await findMessage(db, CHATS, n1)).toMatchObject({ claimed_by: null, next_attempt_at: now });
    expect(await findMessage(db, HOOKS, w1)).toMatchObject({ claimed_by: 'dead', next_attempt_at: now + HOUR });
    await worker(outbox('hooks', HOOKS)).drain();
    expect(sent).toEqual([]);
  });

  it('tries a failing message again on the retry schedule and gives it up after the eighth attempt', async () => {
    answer = { success: false, statusCode: 503, error: 'HTTP 503', durationMs: 1 };
    const hooks = worker(outbox('hooks', HOOKS));
    const w1 = await queue(HOOKS, 'hook');
    const waited: number[] = [];
    for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
      await hooks.drain();
      const m = await findMessage(db, HOOKS, w1);
      expect(m).toMatchObject({ status: 'pending', attempts: attempt, last_status_code: 503, last_error: 'HTTP 503' });
      waited.push(m!.next_attempt_at - clock.now());
      // Not a moment sooner.
      clock.set(m!.next_attempt_at - 1);
      await hooks.drain();
      clock.advance(1);
    }
    expect(waited).toEqual([...RETRY_DELAYS_MS]);
    expect(sent.length).toBe(MAX_ATTEMPTS - 1);
    await hooks.drain();
    expect(await findMessage(db, HOOKS, w1)).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS });
    expect(await listAttempts(db, HOOKS, [w1])).toHaveLength(MAX_ATTEMPTS);
    expect(await listAttempts(db, CHATS, [w1])).toEqual([]);
  });

  it("disables a subscription failing for its outbox's time and gives up its pending messages; a success ends a run of failures", async () => {
    answer = { success: false, statusCode: null, error: 'connection refused', durationMs: 1 };
    const chats = worker(outbox('chats', CHATS, HOUR));
    await queue(CHATS, 'chat');
    await chats.drain();
    const failingSince = clock.now();
    const subscription = () => db.selectFrom('notify_subscriptions').selectAll().executeTakeFirstOrThrow();
    expect(await subscription()).toMatchObject({ enabled: 1, failing_since: failingSince });

    answer = { success: true, statusCode: 200, error: null, durationMs: 1 };
    clock.advance(RETRY_DELAYS_MS[0]!);
    await chats.drain();
    expect(await subscription()).toMatchObject({ enabled: 1, failing_since: null });

    answer = { success: false, statusCode: 500, error: 'HTTP 500', durationMs: 1 };
    const n2 = await queue(CHATS, 'chat');
    const n3 = await queue(CHATS, 'chat'); // waits behind n2
    const since = clock.now();
    await chats.drain();
    for (const delay of RETRY_DELAYS_MS.slice(0, 3)) {
      clock.advance(delay);
      await chats.drain();
    }
    // Failing since `since` for 5 s + 5 min + 30 min: still enabled.
    expect(await subscription()).toMatchObject({ enabled: 1, failing_since: since });
    clock.advance(RETRY_DELAYS_MS[3]!);
    await chats.drain();
    expect(await subscription()).toMatchObject({
      enabled: 0,
      disabled_reason: `every attempt failed since ${new Date(since).toISOString()} (last: HTTP 500)`,
    });
    for (const id of [n2, n3])
      expect(await findMessage(db, CHATS, id)).toMatchObject({
        status: 'failed',
        last_error: 'the endpoint was disabled',
      });
    expect(await db.selectFrom('webhook_subscriptions').selectAll().executeTakeFirstOrThrow()).toMatchObject({
      enabled: 1,
      failing_since: null,
    });
  });
});
