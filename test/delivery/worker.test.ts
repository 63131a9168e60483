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
import type { DeliveryMessageRow } from '../../src/store/database.js';
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
  /** How a send goes: `answer` unless a test says otherwise per message. */
  let respond: (message: DeliveryMessageRow) => Outcome | Promise<Outcome>;
  let events = 0;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    db = connect({ databaseUrl: await database.url(), dataDir: '' });
    await migrateToLatest(db);
    clock = new ManualClock();
    sent = [];
    answer = { success: true, statusCode: 204, error: null, durationMs: 1 };
    respond = () => answer;
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
        return respond(message);
      },
    };
  }

  const worker = (o: Outbox<DeliverySubscription>, instanceId?: string) =>
    new DeliveryWorker(o, { db, clock, ...(instanceId ? { instanceId } : {}) });

  /** Queues a message for the subscription, due now, in the order of `orderKey`; returns its id. */
  async function queue(tables: OutboxTables, subscriptionId: string, orderKey = 'q1'): Promise<string> {
    events += 1;
    const message = { subscription_id: subscriptionId, queue_id: 'q1', event_id: events, event_type: 'merged' };
    await queueMessages(db, tables, [{ ...message, order_key: orderKey, body: '{}' }], clock.now());
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

  const REFUSED: Outcome = {
    success: false,
    statusCode: null,
    error: 'connect ECONNREFUSED 10.0.0.1:443',
    durationMs: 1,
  };
  const OK: Outcome = { success: true, statusCode: 204, error: null, durationMs: 1 };
  /** The message ids `outbox` was asked to send, in order. */
  const sentOf = (name: string) => sent.filter((s) => s.startsWith(`${name} `)).map((s) => s.slice(name.length + 1));

  describe.each([
    ['webhooks', HOOKS, 'hook'],
    ['chats', CHATS, 'chat'],
  ] as const)('a blip of the %s endpoint', (name, tables, subscription) => {
    it("sends at once, in order, what waits for the endpoint when it answers 2xx again; a message's own refusal and another instance's attempt keep their time", async () => {
      const w = worker(outbox(name, tables));
      const down = await queue(tables, subscription, 'pr-1'); // no answer: the endpoint's failure
      const held = await queue(tables, subscription, 'pr-1'); // behind it
      const gateway = await queue(tables, subscription, 'pr-2'); // a gateway's 503: the endpoint's too
      const refused = await queue(tables, subscription, 'pr-3'); // a 400: this message's failure
      const theirs = await queue(tables, subscription, 'pr-4'); // in flight on another instance
      respond = (m) =>
        m.message_id === gateway
          ? { success: false, statusCode: 503, error: 'HTTP 503', durationMs: 1 }
          : m.message_id === refused
            ? { success: false, statusCode: 400, error: 'HTTP 400: unknown field', durationMs: 1 }
            : REFUSED;
      // Failed twice each (the second retry is 5 min away) …
      await w.drain();
      clock.advance(RETRY_DELAYS_MS[0]!);
      await w.drain();
      const start = clock.now();
      for (const id of [down, gateway, refused])
        expect(await findMessage(db, tables, id)).toMatchObject({
          attempts: 2,
          next_attempt_at: start + RETRY_DELAYS_MS[1]!,
        });
      // … and one claimed again by another instance, its attempt in flight.
      const theirsRow = (await findMessage(db, tables, theirs))!;
      await leaseMessages(db, tables, [Number(theirsRow.id)], start, start + HOUR, 'other-instance');
      sent = [];

      // The receiver is back 3 s later; the next event (another PR's) is delivered.
      clock.advance(3_000);
      respond = (m) =>
        m.message_id === refused ? { ...answer, success: false, statusCode: 400, error: 'HTTP 400' } : OK;
      const next = await queue(tables, subscription, 'pr-5');
      await w.drain();
      // The event first; then, side by side, the two waiting after the endpoint's failures; `held` after `down`.
      const order = sentOf(name);
      expect(order[0]).toBe(next);
      expect(order.slice(1).sort()).toEqual([down, gateway, held].sort());
      expect(order.indexOf(held)).toBeGreaterThan(order.indexOf(down));
      for (const id of [next, down, gateway, held])
        expect(await findMessage(db, tables, id)).toMatchObject({ status: 'delivered', delivered_at: clock.now() });
      expect(await findMessage(db, tables, refused)).toMatchObject({
        status: 'pending',
        attempts: 2,
        next_attempt_at: start + RETRY_DELAYS_MS[1]!,
      });
      expect(await findMessage(db, tables, theirs)).toMatchObject({
        status: 'pending',
        claimed_by: 'other-instance',
        next_attempt_at: start + HOUR,
      });
      expect(await db.selectFrom(tables.subscriptions).select('failing_since').executeTakeFirst()).toEqual({
        failing_since: null,
      });
    });

    it('an attempt that failed while another instance delivered to the endpoint is made again at once, not in 5 minutes', async () => {
      const w1 = worker(outbox(name, tables), 'instance-1');
      const w2 = worker(outbox(name, tables), 'instance-2');
      const first = await queue(tables, subscription, 'pr-1');
      const second = await queue(tables, subscription, 'pr-1');
      respond = () => REFUSED;
      await w1.drain();
      clock.advance(RETRY_DELAYS_MS[0]!);
      // The second attempt of `first` is refused, but while it is under way the endpoint comes back and
      // the other instance delivers another PR's event (it finds `first` claimed: not its to release).
      let other = '';
      respond = async () => {
        respond = () => OK;
        clock.advance(1);
        other = await queue(tables, subscription, 'pr-2');
        await w2.drain();
        return REFUSED;
      };
      await w1.drain();
      expect(sentOf(name)).toEqual([first, first, other, first, second]);
      const row = await findMessage(db, tables, first);
      expect(row).toMatchObject({ status: 'delivered', attempts: 3 });
      expect(await findMessage(db, tables, second)).toMatchObject({ status: 'delivered' });
      // Within the same millisecond, not at the 5-minute retry.
      expect(row!.delivered_at).toBe(clock.now());
    });

    it('a later event of the same order is a reason to try the waiting one early; a failed early try does not count nor move its retry', async () => {
      const w = worker(outbox(name, tables));
      const first = await queue(tables, subscription, 'pr-1');
      const refusedOnItsOwn = await queue(tables, subscription, 'pr-2');
      respond = (m) =>
        m.message_id === refusedOnItsOwn ? { ...REFUSED, statusCode: 400, error: 'HTTP 400' } : REFUSED;
      await w.drain();
      clock.advance(RETRY_DELAYS_MS[0]!);
      await w.drain();
      const retryAt = clock.now() + RETRY_DELAYS_MS[1]!;
      sent = [];

      // Still down: a new event behind `first` makes it try early; the failure leaves its schedule as it was.
      clock.advance(2_000);
      const second = await queue(tables, subscription, 'pr-1');
      await queue(tables, subscription, 'pr-2'); // behind the one refused on its own: no early try
      await w.drain();
      expect(sentOf(name)).toEqual([first]);
      expect(await findMessage(db, tables, first)).toMatchObject({
        status: 'pending',
        attempts: 2,
        next_attempt_at: retryAt,
        last_error: REFUSED.error,
      });
      expect(await listAttempts(db, tables, [first])).toHaveLength(3);
      await w.drain();
      expect(sentOf(name)).toEqual([first]); // once per new event, not again

      // Back: the next event of the PR sends the three of them, in order, seconds after the recovery.
      clock.advance(2_000);
      respond = (m) => (m.message_id === refusedOnItsOwn ? { ...REFUSED, statusCode: 400, error: 'HTTP 400' } : OK);
      const third = await queue(tables, subscription, 'pr-1');
      await w.drain();
      expect(sentOf(name)).toEqual([first, first, second, third]);
      expect(await findMessage(db, tables, first)).toMatchObject({ status: 'delivered', attempts: 3 });
      expect(await findMessage(db, tables, refusedOnItsOwn)).toMatchObject({ status: 'pending', attempts: 2 });
    });

    it('two instances draining after the endpoint is back send each message once, each order kept', async () => {
      const w1 = worker(outbox(name, tables), 'instance-1');
      const w2 = worker(outbox(name, tables), 'instance-2');
      const keys = ['pr-1', 'pr-2', 'pr-3', 'pr-4'];
      const queued = new Map<string, string[]>();
      for (let round = 0; round < 3; round++)
        for (const key of keys) queued.set(key, [...(queued.get(key) ?? []), await queue(tables, subscription, key)]);
      respond = () => REFUSED;
      await w1.drain();
      clock.advance(RETRY_DELAYS_MS[0]!);
      await w2.drain();
      sent = [];
      clock.advance(2_000);
      respond = () => OK;
      const trigger = await queue(tables, subscription, 'pr-5');
      await Promise.all([w1.drain(), w2.drain()]);
      const ids = sentOf(name);
      expect(ids).toContain(trigger);
      expect(ids.length).toBe(keys.length * 3 + 1);
      expect(new Set(ids).size).toBe(ids.length);
      for (const key of keys) expect(ids.filter((id) => queued.get(key)!.includes(id))).toEqual(queued.get(key));
      for (const [, list] of queued)
        for (const id of list)
          expect(await findMessage(db, tables, id)).toMatchObject({
            status: 'delivered',
            attempts: id === list[0] ? 3 : 1,
          });
    });
  });
});
