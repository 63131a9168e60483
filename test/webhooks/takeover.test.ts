/**
 * Webhook deliveries in flight when their instance dies, on SQLite and (when reachable) PostgreSQL:
 * instances A (the test service), B and C on one store, a real receiver, a manual clock. A drives the
 * queue and dies in the middle of an attempt; C, alive and holding no queue, has an attempt of its own
 * in flight. B takes A's queue over when A's lease runs out: A's delivery goes out again then (within
 * the lease length, not after the 75 s reservation), C's stays C's, and each PR's events still reach
 * the receiver in order.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScriptedCi } from '../doubles/scripted-ci.js';
import { createApp, type App } from '../../src/app/create-app.js';
import type { AuthContext } from '../../src/app/service-port.js';
import { DEFAULT_TIMEOUT_MS } from '../../src/delivery/http-post.js';
import { findMessage, leaseMessages, selectDueMessageIds } from '../../src/delivery/messages.js';
import { WEBHOOK_TABLES } from '../../src/webhooks/outbox.js';
import { testDatabases } from '../helpers/databases.js';
import { createTestService, type TestService } from '../helpers/service.js';
import { Receiver } from './receiver.js';

const databases = await testDatabases();
const REPO = 'github.com/acme/web';
const TTL = 15_000;
/** How long the worker reserves a message it attempts: the answer timeout and a minute. */
const RESERVATION_MS = DEFAULT_TIMEOUT_MS + 60_000;

describe.each(databases)('webhook deliveries after a takeover on $name', (database) => {
  let receiver: Receiver;
  let t: TestService;
  let ctx: AuthContext;
  let b: App;
  let c: App;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    receiver = await new Receiver().start();
    t = await createTestService({ databaseUrl: await database.url() });
    ({ ctx } = await t.createOrg('acme'));
    await t.connectRepo('acme', REPO);
    await t.service.createQueue(ctx, t.key(REPO), {});
    const { secret } = await t.service.webhooks.create(
      { id: ctx.orgId, name: ctx.orgName },
      receiver.url,
      undefined,
      ctx,
    );
    receiver.secret = secret;
    receiver.now = () => t.clock.now();
    const instance = (instanceId: string) =>
      createApp({
        db: t.db,
        clock: t.clock,
        forges: { git: t.forge, github: t.forge },
        pollIntervalMs: 60_000,
        leaseTtlMs: TTL,
        instanceId,
        createCi: (onStatus) => Object.assign(new ScriptedCi(), { onStatus }),
      });
    b = instance('instance-b');
    c = instance('instance-c');
  });
  afterEach(async () => {
    await b.stop();
    await c.stop();
    await receiver.close();
    await t.close();
  });

  /** Claims the next due message of each PR for `instanceId`, as its delivery worker does before posting. */
  async function claimHeads(instanceId: string, limit: number): Promise<string[]> {
    const now = t.clock.now();
    const claimed = await t.db
      .transaction()
      .execute(async (trx) =>
        leaseMessages(
          trx,
          WEBHOOK_TABLES,
          await selectDueMessageIds(trx, WEBHOOK_TABLES, now, limit),
          now,
          now + RESERVATION_MS,
          instanceId,
        ),
      );
    return claimed.map((m) => m.message_id);
  }
  const typesOf = (pr: number) =>
    receiver
      .delivered()
      .filter((r) => r.body.pr_number === pr)
      .map((r) => r.body.type);

  it("the dead holder's delivery is sent again within the lease length, a live instance's is left to it, order per PR kept", async () => {
    for (const n of [1, 2]) {
      t.forge.openPr(REPO, { number: n });
      await t.service.submitPullRequest(ctx, t.key(REPO), { prNumber: n });
    }
    await t.runEffects(); // A takes the queue's lease and records the events: messages are queued
    const start = t.clock.now();
    const [ofA] = await claimHeads(t.app.leases.instanceId, 1); // A's attempt in flight: PR 1 submitted
    const [ofC] = await claimHeads('instance-c', 1); // C's: PR 2 submitted
    expect((await findMessage(t.db, WEBHOOK_TABLES, ofA!))?.order_key).not.toBe(
      (await findMessage(t.db, WEBHOOK_TABLES, ofC!))?.order_key,
    );

    // A dies. B looks every second, as its lease rounds and delivery worker would.
    let resentAfter: number | null = null;
    while (t.clock.now() - start < RESERVATION_MS + 5_000) {
      t.clock.advance(1_000);
      await b.runner.drain();
      await b.webhooks.drain();
      if (receiver.delivered().some((r) => r.id === ofA)) {
        resentAfter = t.clock.now() - start;
        break;
      }
    }
    expect(resentAfter).toBe(TTL);
    expect(typesOf(1)).toEqual(['pull_request.submitted', 'pull_request.queued', 'pull_request.testing']);
    // C is alive: its attempt is still its own, and PR 2's later events wait behind it.
    expect(await findMessage(t.db, WEBHOOK_TABLES, ofC!)).toMatchObject({
      status: 'pending',
      claimed_by: 'instance-c',
    });
    expect(typesOf(2)).toEqual([]);

    // C's reservation runs out without an answer recorded: the message is sent again, then the rest of PR 2.
    t.clock.advance(RESERVATION_MS);
    await b.webhooks.drain();
    expect(typesOf(2)).toEqual(['pull_request.submitted', 'pull_request.queued']);
    expect(receiver.delivered().filter((r) => r.id === ofA).length).toBe(1);
    expect(receiver.rejected).toEqual([]);
  });
});
